"""The solver's help: is it still winnable, a solver hint, the review of a game."""
