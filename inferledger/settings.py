"""InferLedger settings: one module, driven by the environment (see the README's configuration table).

With no environment at all this is the embedded default: a SQLite file in the project folder, no broker
(benchmarks run in-process on the local CPU). DEBUG is off unless asked for (DEBUG=true: `make run` and the
tests ask); with it off, SECRET_KEY is required.
"""

import os
import secrets
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from inferledger.broker import transport_for

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

# Off unless asked for: a DEBUG error page shows settings and the request to whoever triggers it.
DEBUG = env.bool("DEBUG", default=False)

# A default key is only acceptable for a local, DEBUG instance: production must bring its own.
_DEV_SECRET_KEY = "insecure-dev-key-for-local-debug-only-never-use-in-production-0123456789"
# An agent host (it has INFERLEDGER_AGENT_SECRET) needs no SECRET_KEY: it serves no page and signs nothing
# with it, so it gets a random one per process and the control plane's key never leaves the control plane.
_AGENT_HOST_KEY = secrets.token_urlsafe(50) if env.str("INFERLEDGER_AGENT_SECRET", default="") else ""
SECRET_KEY = env.str("SECRET_KEY", default=_DEV_SECRET_KEY if DEBUG else _AGENT_HOST_KEY)
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "SECRET_KEY is required when DEBUG is off. Set it to a random string of at least 50 characters, "
        "e.g. SECRET_KEY=\"$(python -c 'import secrets; print(secrets.token_urlsafe(64))')\", "
        "or set DEBUG=true for local development (make run does)."
    )

# Error reports (the DEBUG page, error e-mails) mask passwords inside URLs too (DATABASE_URL, CELERY_BROKER_URL...).
DEFAULT_EXCEPTION_REPORTER_FILTER = "inferledger.debug_reporting.SecretMaskingReporterFilter"

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "axes",
    "inferledger.accounts",
    "hardware_catalog",
    "results",
    "agents",
    "accounting",
    "metering",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves STATIC_ROOT (after collectstatic) from the web process itself: a deployment that follows
    # docs/operations.md has CSS and plotly.js without a separate file server.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # django-csp's, with the header built once where settings alone decide it (inferledger/csp.py).
    "inferledger.csp.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "inferledger.errors.BackingServiceErrorMiddleware",
    # Last, as django-axes asks: it answers a locked-out login attempt (below, "Login throttling").
    "axes.middleware.AxesMiddleware",
]

# The URL table is inferledger.urls; inferledger.routing puts it behind a resolver that remembers its answers.
ROOT_URLCONF = "inferledger.routing"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboard.context_processors.site_links",
            ],
        },
    },
]

WSGI_APPLICATION = "inferledger.wsgi.application"

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# CI gives each run its own test database so parallel runs on one server never collide.
if env.str("TEST_DATABASE_NAME", default=""):
    DATABASES["default"]["TEST"] = {"NAME": env.str("TEST_DATABASE_NAME")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Per-process memory by default; production points CACHE_URL at Redis so every web worker shares the
# ranking cache (one recomputation per expiry instead of one per worker).
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
# Django's Redis cache builds a client object per call, which costs more than the round trip (inferledger.redis_cache).
SHARED_CLIENT_BACKENDS = {
    "django.core.cache.backends.redis.RedisCache": "inferledger.redis_cache.SharedClientRedisCache"
}
CACHES["default"]["BACKEND"] = SHARED_CLIENT_BACKENDS.get(CACHES["default"]["BACKEND"], CACHES["default"]["BACKEND"])
# Dashboard sessions read from a shared cache (written through to the database): one query less per page. Only
# with a shared cache: with per-process memory, a session ended in one worker (logout, password change) would
# still be remembered by the others.
PER_PROCESS_CACHES = ("django.core.cache.backends.locmem.LocMemCache", "django.core.cache.backends.dummy.DummyCache")


def session_engine_for(cache_backend: str) -> str:
    return (
        "django.contrib.sessions.backends.db"
        if cache_backend in PER_PROCESS_CACHES
        else "django.contrib.sessions.backends.cached_db"
    )


SESSION_ENGINE = session_engine_for(CACHES["default"]["BACKEND"])

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # collectstatic also writes a gzip copy of each file (plotly.js: 4.6 MB, 1.4 MB gzipped) for whitenoise.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []

# Dashboard: server-rendered pages with plotly figures. plotly.js is served from the installed plotly
# package (the same build the Python figures are made for), never from a CDN: pages work air-gapped.
INSTALLED_APPS += ["dashboard"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "dashboard.staticfiles.PlotlyJsFinder",
]
DASHBOARD_POLL_MS = env.int("DASHBOARD_POLL_MS", default=3000)  # how often the Jobs page refreshes progress

# Login throttling (django-axes): after LOGIN_FAILURE_LIMIT wrong passwords for one username from one address,
# that pair is refused (429) for LOGIN_LOCKOUT_MINUTES, whatever the password; a success resets the count.
# It covers every login that goes through django.contrib.auth.authenticate: the dashboard's and the admin's.
# ModelBackend with the session's user row cached (inferledger/accounts/backends.py). Sessions name the backend that
# signed them in, so a session from before this backend (ModelBackend) signs in once more.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "inferledger.accounts.backends.CachedUserBackend"]
# How long a session's user row is remembered (inferledger/accounts/backends.py); 0: read every request.
SESSION_USER_CACHE_SECONDS = env.int("SESSION_USER_CACHE_SECONDS", default=30)
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_LOCKOUT_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]  # one address cannot lock a user out everywhere
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
AXES_VERBOSE = False
# Behind the TLS proxy (docs/operations.md) every request comes from the proxy: count the address it appended.
LOGIN_THROTTLE_BEHIND_PROXY = env.bool("LOGIN_THROTTLE_BEHIND_PROXY", default=False)
AXES_CLIENT_IP_CALLABLE = "inferledger.accounts.throttle.client_ip"

# Password reset by e-mail only where e-mail is configured (EMAIL_URL, e.g. smtp+tls://user:pw@host:587);
# without it the reset pages do not exist (each reset POST logged an SMTP traceback) and staff set
# passwords with `manage.py changepassword` or the admin (docs/operations.md).
PASSWORD_RESET_BY_EMAIL = bool(env.str("EMAIL_URL", default=""))
if PASSWORD_RESET_BY_EMAIL:
    vars().update(env.email_url("EMAIL_URL"))
    DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="inferledger@localhost")

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

# Bodies above 1 MiB are refused (413) rather than parsed; result payloads stay well below.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=1_048_576)

if not DEBUG:
    SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
    CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=3600)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): scripts only from this server (plotly.js, the dashboard's figures.js,
# the API docs' own scripts): no inline script runs, whatever a page might be made to contain. Styles may be
# inline: plotly.js sets style attributes and injects its stylesheet at run time. Images from data:/blob:
# URLs are plotly's icons and image export; blob: workers are Redoc's.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

REST_FRAMEWORK = {
    # Token first, so an anonymous request gets 401 with a WWW-Authenticate header rather than 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "inferledger.accounts.authentication.CachedTokenAuthentication",  # knox's, cached per token
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["inferledger.permissions.ReadAuthenticatedWriteStaff"],
    # JSON too large or too deeply nested is a 400 naming the limit (inferledger/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "inferledger.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "COERCE_DECIMAL_TO_STRING": True,
    "EXCEPTION_HANDLER": "inferledger.api.exception_handler",
}

# How long a checked API token is remembered (inferledger/accounts/authentication.py); 0: checked every request.
API_TOKEN_CACHE_SECONDS = env.int("API_TOKEN_CACHE_SECONDS", default=30)
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=env.int("API_TOKEN_TTL_DAYS", default=90)),
    "TOKEN_LIMIT_PER_USER": 5,
    "AUTO_REFRESH": False,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "InferLedger API",
    "DESCRIPTION": "What one AI inference costs on each kind of hardware, measured.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and the docs pages are for signed-in users, like the API they describe.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Assets come from drf-spectacular-sidecar so /api/docs/ works on an air-gapped network.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "PriceKindEnum": "hardware_catalog.models.PriceKind",
        "AcceleratorKindEnum": "hardware_catalog.models.AcceleratorKind",
        "WorkUnitEnum": "accounting.api.ranking_serializers.UNITS",
    },
}

# Celery. Unset broker = the embedded default: benchmarks run in-process, no worker needed.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
# kombu's Redis transport with a fix that keeps workers alive across a Redis restart (inferledger/broker.py).
CELERY_BROKER_TRANSPORT = transport_for(CELERY_BROKER_URL)
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=CELERY_BROKER_URL or None)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
# The machine's fitness checks around each point (harness.telemetry.host): "enforce" stores a point measured
# on an unfit host as not valid; "record" keeps the state and the reasons only. An agent host (a broker is
# set) enforces; the embedded default's one host also runs the web, the database and its owner's work, so
# there they record (README, "Validity of the machine"). The harness reads it from the environment.
INFERLEDGER_HOST_CHECKS = env.str("INFERLEDGER_HOST_CHECKS", default="enforce" if CELERY_BROKER_URL else "record")
os.environ["INFERLEDGER_HOST_CHECKS"] = INFERLEDGER_HOST_CHECKS
CELERY_ACCEPT_CONTENT = ["json"]  # pickle would let anyone who reaches the broker run code
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

# Celery reliability (docs/operations.md; RELIABILITY.md; asserted by tests/agents/test_celery_config.py).
# Control-plane tasks (registration, progress, ingest, reaper, schedules) go to this queue; each agent
# consumes only its own queue "agent.<name>", so GPU hosts never execute database work.
INFERLEDGER_CONTROL_QUEUE = "control"
CELERY_TASK_DEFAULT_QUEUE = INFERLEDGER_CONTROL_QUEUE
# Ack after the task ran, not before: a worker that dies mid-benchmark leaves the message to be
# redelivered (at-least-once); ingest is idempotent on the run UUID, so each run is stored once.
CELERY_TASK_ACKS_LATE = True
# A pool child killed by a signal (OOM, segfault, kill -9) is requeued at once instead of acked as
# failed; Job.attempts (capped at INFERLEDGER_JOB_MAX_ATTEMPTS) stops the endless requeue loop.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# A task that failed or hit its hard time limit is acked, never redelivered (F3: no overrun loops).
CELERY_TASK_ACKS_ON_FAILURE_OR_TIMEOUT = True
# Reserve one message at a time: with acks_late, a prefetched message would sit unstarted on a busy
# host (and be redelivered elsewhere after the visibility timeout); reserved == running.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# The longest a job may run (its hard time limit is capped at this); each job carries its own limit.
INFERLEDGER_JOB_TIME_LIMIT_MAX_S = env.int("INFERLEDGER_JOB_TIME_LIMIT_MAX_S", default=6 * 3600)
# The soft limit fires this long before the hard one so the task can free the GPU and report.
INFERLEDGER_JOB_SOFT_MARGIN_S = 60
# Control tasks are short database work: generous limits that still catch a wedged task.
CELERY_TASK_SOFT_TIME_LIMIT = 240
CELERY_TASK_TIME_LIMIT = 300
# The share of paid accelerator-hours spent serving that every cost assumes unless a question states its own
# (accounting/pricing/utilization.py; why 100 %: docs/cost-model.md). Every answer states the one it used.
INFERLEDGER_UTILIZATION = env.str("INFERLEDGER_UTILIZATION", default="1")
try:
    _utilization = Decimal(INFERLEDGER_UTILIZATION)
except ArithmeticError:
    _utilization = Decimal(0)
if not Decimal(0) < _utilization <= 1:
    raise ImproperlyConfigured(
        f"INFERLEDGER_UTILIZATION must be a number in (0, 1] (e.g. 0.6 for 60 %), got {INFERLEDGER_UTILIZATION!r}"
    )
# Transient-error retries (database or broker unreachable) back off up to this long.
INFERLEDGER_RETRY_BACKOFF_MAX_S = 600
# Control tasks wait out a database outage in-process (no ETA message, nothing acked unstored) for up to
# this long, retrying every few seconds (capped backoff); past it the message is requeued, never dropped.
INFERLEDGER_DB_OUTAGE_MAX_S = env.int("INFERLEDGER_DB_OUTAGE_MAX_S", default=3600)
INFERLEDGER_DB_RETRY_BACKOFF_MAX_S = 5
# An agent's reports (start, progress, results, end) retry publishing through a broker outage this long.
INFERLEDGER_REPORT_PUBLISH_RETRY_S = env.int("INFERLEDGER_REPORT_PUBLISH_RETRY_S", default=300)
# Redis redelivers a message not acked within the visibility timeout, counted from reservation: it must
# exceed the longest job plus the retry backoff, or a long job runs twice at once. It is set in all three
# places Celery reads it (celery#7651). Tests shorten it (CELERY_VISIBILITY_TIMEOUT_S=8) so a killed
# worker's job is redelivered within seconds; production keeps the default.
CELERY_VISIBILITY_TIMEOUT_S = env.int(
    "CELERY_VISIBILITY_TIMEOUT_S", default=INFERLEDGER_JOB_TIME_LIMIT_MAX_S + INFERLEDGER_RETRY_BACKOFF_MAX_S + 3600
)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT_S}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT_S}
CELERY_VISIBILITY_TIMEOUT = CELERY_VISIBILITY_TIMEOUT_S
# The result backend is not the record (the database is): keep task results a day only.
CELERY_RESULT_EXPIRES = timedelta(days=1)
CELERY_TASK_TRACK_STARTED = True
# Workers keep retrying the broker at start-up instead of exiting (Redis restarting during a deploy).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# On a lost broker connection, running late-ack tasks are cancelled and redelivered (default in 6.0).
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Reaper: every minute, fail (or requeue, up to the attempt limit) jobs active past their deadline.
INFERLEDGER_REAPER_INTERVAL_S = env.int("INFERLEDGER_REAPER_INTERVAL_S", default=60)
# The control worker records a heartbeat (and the broker's persistence) this often; the status endpoint
# shows it offline after INFERLEDGER_CONTROL_OFFLINE_AFTER_S without one.
INFERLEDGER_CONTROL_HEARTBEAT_S = env.int("INFERLEDGER_CONTROL_HEARTBEAT_S", default=30)
INFERLEDGER_CONTROL_OFFLINE_AFTER_S = env.int("INFERLEDGER_CONTROL_OFFLINE_AFTER_S", default=120)
CELERY_BEAT_SCHEDULE = {
    "inferledger-reap-jobs": {
        "task": "agents.reap_jobs",
        "schedule": float(INFERLEDGER_REAPER_INTERVAL_S),
        # A reaper run that waited a whole interval in the queue is superseded by the next one.
        "options": {"expires": INFERLEDGER_REAPER_INTERVAL_S},
    },
    "inferledger-control-heartbeat": {
        "task": "agents.control_heartbeat",
        "schedule": float(INFERLEDGER_CONTROL_HEARTBEAT_S),
        "options": {"expires": INFERLEDGER_CONTROL_HEARTBEAT_S},
    },
}
INFERLEDGER_JOB_MAX_ATTEMPTS = 3
# A queued job no agent has started within this long is failed (its agent is gone or wedged).
INFERLEDGER_JOB_START_TIMEOUT_S = env.int("INFERLEDGER_JOB_START_TIMEOUT_S", default=24 * 3600)
# A running job gets its time limit plus this grace for the last reports to arrive before it is reaped.
INFERLEDGER_JOB_REPORT_GRACE_S = env.int("INFERLEDGER_JOB_REPORT_GRACE_S", default=120)
# A queued job whose message is in no broker queue and held by no worker this long after its dispatch
# (a Redis restarted without persistence) is dispatched again by the reaper. A running job its agent has
# heartbeated this long without listing (its message lost with a restarted broker) is too: within
# AGENT_HEARTBEAT_S + LOST_JOB_GRACE_S + REAPER_INTERVAL_S (210 s by default) of the broker's return.
INFERLEDGER_LOST_JOB_GRACE_S = env.int("INFERLEDGER_LOST_JOB_GRACE_S", default=120)
# On an agent host: the secret issued by `manage.py enroll_agent NAME`; every report the agent sends is
# signed with it (HMAC-SHA256), and the control plane accepts a result only from the job's own agent.
INFERLEDGER_AGENT_SECRET = env.str("INFERLEDGER_AGENT_SECRET", default="")
# Agents heartbeat every INFERLEDGER_AGENT_HEARTBEAT_S; one silent for longer than the timeout is offline.
INFERLEDGER_AGENT_HEARTBEAT_S = env.int("INFERLEDGER_AGENT_HEARTBEAT_S", default=30)
INFERLEDGER_AGENT_OFFLINE_AFTER_S = env.int("INFERLEDGER_AGENT_OFFLINE_AFTER_S", default=120)
# An agent's report (registration, heartbeat, job start, progress, result, end) signed longer ago than this when
# the control worker takes it is refused (a result: quarantined), as is a second copy of one (its nonce): a
# captured report cannot be replayed. It covers an agent publishing through a broker outage
# (INFERLEDGER_REPORT_PUBLISH_RETRY_S) and a backlog in the control queue; agents' clocks must be within 60 s.
INFERLEDGER_AGENT_MESSAGE_MAX_AGE_S = env.int("INFERLEDGER_AGENT_MESSAGE_MAX_AGE_S", default=900)

# GET /metrics (metering/exporter.py; docs/operations.md "Prometheus export"): scraped with this bearer token
# when set; else open when INFERLEDGER_METRICS_OPEN (a deployment on an internal network); else off (403).
INFERLEDGER_METRICS_TOKEN = env.str("INFERLEDGER_METRICS_TOKEN", default="")
INFERLEDGER_METRICS_OPEN = env.bool("INFERLEDGER_METRICS_OPEN", default=False)

# On-premises defaults used when no assumption set has been created (documented in the README).
INFERLEDGER_ONPREM_DEFAULTS = {
    "amortization_years": "4",
    "usd_per_kwh": "0.12",
    "pue": "1.4",
    "opex_fraction_per_year": "0.10",
    "host_capex_share_usd": "5000",
}

# import_mlperf and build_published_results unpack a .tar.xz only if it holds at most this many bytes and
# members (a decompression bomb would fill the disk; the largest public results repository is a few GB).
INFERLEDGER_ARCHIVE_MAX_UNPACKED_BYTES = env.int("INFERLEDGER_ARCHIVE_MAX_UNPACKED_BYTES", default=16 * 1024**3)
INFERLEDGER_ARCHIVE_MAX_MEMBERS = env.int("INFERLEDGER_ARCHIVE_MAX_MEMBERS", default=1_000_000)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# Accounting: regression alarms fire when a new cost snapshot is more than THRESHOLD above the
# trailing median of the previous WINDOW snapshots of its series. A cached ranking is served while the data
# it was built from is unchanged, and rebuilt at the latest after RANKING_CACHE_SECONDS (0: no cache).
ACCOUNTING_ALARM_WINDOW = env.int("ACCOUNTING_ALARM_WINDOW", default=5)
ACCOUNTING_ALARM_THRESHOLD = env.str("ACCOUNTING_ALARM_THRESHOLD", default="0.10")
ACCOUNTING_RANKING_CACHE_SECONDS = env.int("ACCOUNTING_RANKING_CACHE_SECONDS", default=300)
