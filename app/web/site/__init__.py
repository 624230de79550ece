"""What every page shares: templates and rendering, errors, dependencies, CSRF, static files,
the installable app."""
