#!/usr/bin/env bash
# make image: ko builds the three-platform cortex image into a loopback
# registry on a locally assembled base; each platform's binary is exported
# and run (arm64 and arm/v7 under qemu-user-static), and the amd64 and arm64
# ones serve briefly and pass `cortex healthcheck`.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${TOOLS:?}" "${CACHE:?}" "${VERSION:?}" "${REGISTRY_ADDR:?}"
source image/local/lib.sh

for q in qemu-aarch64-static qemu-arm-static; do
	command -v "$q" >/dev/null || { echo "image: $q missing; apt-get install qemu-user-static" >&2; exit 1; }
done

start_registry
build_base

out="$CACHE/image"
rm -rf "$out" && mkdir -p "$out"
echo "ko build (version $VERSION)"
export VERSION # ko.yaml's ldflags read it
ref=$(KO_CONFIG_PATH="$PWD/ko.yaml" KO_DOCKER_REPO="$REG/cortex" KO_DEFAULTBASEIMAGE="$BASE_REF" \
	"$TOOLS/ko" build --bare --sbom=spdx --tags="$VERSION" \
	--platform=linux/amd64,linux/arm64,linux/arm/v7 \
	--image-label=org.opencontainers.image.source=https://github.com/cortex-mcp/cortex \
	--image-label=org.opencontainers.image.licenses=Apache-2.0 \
	--image-label=org.opencontainers.image.version="$VERSION" \
	./cmd/cortex 2>"$out/ko.log") || { cat "$out/ko.log"; exit 1; }
echo "image: $ref"
platform_sizes "$ref"

# The image's promises: non-root user, labels.
cfg=$("$crane" config --platform linux/amd64 "$ref")
python3 - "$cfg" <<'PY'
import json, sys
c = json.loads(sys.argv[1])["config"]
assert c.get("User") == "65532:65532", f"user is {c.get('User')!r}, want 65532:65532"
labels = c.get("Labels") or {}
for k in ("org.opencontainers.image.source", "org.opencontainers.image.licenses", "org.opencontainers.image.version"):
    assert k in labels, f"label {k} missing"
print(f"  config: user {c['User']}, entrypoint {c.get('Entrypoint')}, licence {labels['org.opencontainers.image.licenses']}")
PY
echo "  registry tags: $("$crane" ls "$REG/cortex" | tr '\n' ' ')"

run_on() { # platform, command...
	case "$1" in
	linux/amd64) shift; "$@" ;;
	linux/arm64) shift; qemu-aarch64-static "$@" ;;
	linux/arm/v7) shift; qemu-arm-static "$@" ;;
	esac
}

port=18480
for p in linux/amd64 linux/arm64 linux/arm/v7; do
	d="$out/${p//\//-}"
	mkdir -p "$d"
	"$crane" export --platform "$p" "$ref" - 2>>"$CACHE/crane.log" | tar -x -C "$d"
	bin="$d/ko-app/cortex"
	echo "$p: $(file -b "$bin" | cut -d, -f1-2); $(run_on "$p" "$bin" version)"
	run_on "$p" "$bin" version | grep -qF "$VERSION"
	[ "$p" = linux/arm/v7 ] && continue # serve under qemu-arm is slow; version proves the binary runs
	port=$((port + 1))
	mkdir -p "$d/run/vault" "$d/run/state"
	CORTEX_VAULT="$d/run/vault" CORTEX_STATE="$d/run/state" CORTEX_LISTEN="127.0.0.1:$port" CORTEX_TLS=off \
		run_on "$p" "$bin" serve >"$d/serve.log" 2>&1 &
	pid=$!
	ok=""
	for _ in $(seq 1 150); do
		if CORTEX_LISTEN="127.0.0.1:$port" run_on "$p" "$bin" healthcheck 2>/dev/null; then ok=1; break; fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	if [ -z "$ok" ]; then echo "$p: serve + healthcheck FAILED"; cat "$d/serve.log"; exit 1; fi
	echo "$p: serve + healthcheck ok"
done
echo "make image: ok"
