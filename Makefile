# Scorpion: the two newcomer commands are `make run` and `make test` (see README.md).
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: run test lint i18n bench bench-floor bench-instr bench-pg bench-load bench-solver bench-sse bench-ui venv

# The venv, made with $(PYTHON) (>= 3.11); on Debian python3-venv is installed first if missing.
$(PY):
	@echo "==> Creating the Python environment in $(VENV) (first run only)"
	@PYTHON=$(PYTHON) sh scripts/ensure-system-deps.sh venv
	@$(PYTHON) -m venv $(VENV)

venv: $(PY)

# Make the venv if missing, install, migrate the default SQLite database, serve; each step
# says what it does (the first run downloads the packages and compiles the solver core).
run: $(PY)
	@echo "==> Installing the app and its packages into $(VENV), compiling the solver core"
	@echo "    (app/engine/solver/_core.pyx, Cython and gcc) and the translations: about a minute"
	@echo "    the first time, a few seconds after that"
	@$(PIP) install -q --progress-bar off -e .
	@$(PY) -c "from app.engine.solver.core import available as c; \
	print('    solver core: ' + ('compiled' if c() else 'pure Python (no C compiler or Python headers: slower)'))"
	@echo "==> Migrating the database ($${DATABASE_URL:-sqlite:///./scorpion.db}: alembic upgrade head)"
	@$(PY) -m alembic upgrade head
	@echo "==> Serving Scorpion at http://127.0.0.1:8000 (Ctrl+C stops it)"
	@$(PY) -m uvicorn app.main:app --host 127.0.0.1 --port 8000

# Install what the tests need (Debian's chromium, docker-compose, caddy and valgrind when
# missing, then the pip packages), lint, then the whole suite: everything but the browser
# tests, then the browser tests in their own pytest call (sync Playwright must not share a
# process with the async tests). Any non-zero pytest exit fails the target, 5 ("no tests
# collected") included.
# Each call spreads its tests over TEST_WORKERS processes (pytest-xdist; each process makes its
# own databases, servers on free ports and browser): here about 7 min instead of 13-15 for the
# first call, 5 for the browser tests. TEST_WORKERS=1 runs them one by one.
TEST_WORKERS ?= 2
test: $(PY)
	PYTHON=$(PYTHON) sh scripts/ensure-system-deps.sh test instr
	$(PIP) install -q -e '.[test]'
	$(MAKE) --no-print-directory lint
	$(PY) -m pytest --ignore=tests/e2e -n $(TEST_WORKERS)
	$(PY) -m pytest tests/e2e -n $(TEST_WORKERS)

# Translations (app/locales, DEVELOPERS.md): extract every message of the templates and
# app/**.py into messages.pot, bring each .po up to it (new messages untranslated, changed
# ones fuzzy), compile the .mo files, then list what is left to translate (`python -m
# scripts.i18n --check` exits 1 while anything is; tests/web/test_i18n_catalog.py fails too).
i18n: $(PY)
	$(PY) -m scripts.i18n

lint: $(PY)
	$(PY) -m ruff check app tests scripts migrations
	$(PY) -m ruff format --check app tests scripts migrations
	$(PY) -m mypy app scripts

# The engine benchmark, then request figures against a running server.
bench: $(PY)
	$(PIP) install -q -e '.[test]'
	$(PY) -m scripts.bench_engine
	$(PY) -m scripts.bench_api

# Load test: many simulated players (hints, moves, deals, undos) against two uvicorn workers
# on a fresh PostgreSQL database (127.0.0.1:5432), RATE_LIMITS=off; bounded in count and time.
bench-load: $(PY)
	$(PIP) install -q -e '.[test]'
	$(PY) -m scripts.bench_load

# The solver: Solvitaire's 200 anchor deals (Scorpion only), then 5,000 of our deal numbers
# (COUNT=... to change) of VARIANT (default scorpion; any id of the family), BUDGET seconds per
# deal (default 10), one core; decided shares, median/p90/p99 times, peak memory.
# SOLVER_CORE=py|c|both (default both): the pure-Python search, the compiled core (Cython,
# built by pip install -e .) or both side by side, each first timed per node on its own.
bench-solver: $(PY)
	$(PIP) install -q -e .
	$(PY) scripts/bench_solver.py --count $(or $(COUNT),5000) --variant $(or $(VARIANT),scorpion) \
		--budget $(or $(BUDGET),10) --core $(or $(SOLVER_CORE),both)

# Live races: 200 event streams held open on loopback (2 workers; PostgreSQL if reachable,
# else SQLite): memory per stream and delivery latency. SQLITE=1 forces SQLite.
bench-sse: $(PY)
	$(PIP) install -q -e '.[test]'
	$(PY) -m scripts.bench_sse --streams $(or $(STREAMS),200) $(if $(SQLITE),--sqlite,)

# The board in Chromium: click-to-paint of a move (one-tap, htmx swap, motion started), p50 and
# p95 over 50 moves on loopback (fresh SQLite, one worker). MOBILE=1: 360x640 with touch.
bench-ui: $(PY)
	$(PIP) install -q -e '.[test]'
	$(PY) -m scripts.bench_ui --moves $(or $(MOVES),50) $(if $(MOBILE),--mobile,)

# The stack's floor (issue 12): a move and the play page against a bare FastAPI baseline
# (scripts/floor_baseline.py) served beside the app in the same run: one uvicorn worker each,
# SQLite, one keep-alive connection each; p10/p50 and their ratios (targets 1.5x and 2x), and
# the htmx move response's size. ROUNDS=... games per path (default 3).
bench-floor: $(PY)
	$(PIP) install -q -e '.[test]'
	$(PY) -m scripts.bench_floor --rounds $(or $(ROUNDS),3)

# The same paths counted, not timed: instructions per request in process, under valgrind
# (installed when missing); deterministic, for comparing two versions on a noisy machine.
bench-instr: $(PY)
	$(PIP) install -q -e '.[test]'
	PYTHON=$(PY) sh scripts/ensure-system-deps.sh instr
	$(PY) -m scripts.bench_instr

# PostgreSQL's cost of a player action (docs/capacity.md): transactions, rows and WAL bytes
# per action, app and database CPU per action, on a fresh database at 127.0.0.1:5432.
bench-pg: $(PY)
	$(PIP) install -q -e '.[test]'
	$(PY) -m scripts.pg_cost --rounds $(or $(ROUNDS),4)
