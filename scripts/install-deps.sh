#!/usr/bin/env bash
# Installs the Debian packages floe builds and tests with, only when one is
# missing (so it is quick on a prepared machine).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  clang-14 libclang-rt-14-dev            # libFuzzer and sanitizers for the fuzz targets
  clang-format-14                         # formats the C sources by .clang-format
  libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev   # Parquet and Avro codecs
  libdeflate-dev                          # CRC-32 of Parquet pages (carry-less multiply)
  libjansson-dev                          # JSON for metadata and schemas
  libsqlite3-dev libpq-dev                # the embedded SQLite catalog and the PostgreSQL one
  libpcre2-dev                            # regexp_like, regexp_extract, regexp_replace in SQL
  libssl-dev                              # md5, sha1, sha256, sha512 in SQL (OpenSSL's libcrypto)
  librdkafka-dev                          # the Kafka client (consumer, producer, admin)
  libmicrohttpd-dev                       # the HTTP server of /metrics and /healthz (src/server)
  libedit-dev                             # line editing and history in the interactive `floe sql` shell
  tzdata                                  # IANA time zones for timestamp with time zone
  postgresql                              # a real server the catalog tests start on loopback
  python3 python3-venv time                 # time: peak memory of floe in tests
  openjdk-17-jdk-headless maven           # the Iceberg Java reference as a test oracle
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
