#!/usr/bin/env bash
# make release-local: the release pipeline offline. goreleaser runs on a
# throwaway clone of the committed tree, tagged v$LOCAL_VERSION there only,
# with a copy of .goreleaser.yaml that pushes images to the loopback registry
# on the locally assembled base and signs with a throwaway cosign key without
# the transparency log (the offline stand-in for keyless signing). Then the
# signatures, checksums and SBOMs are verified.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${TOOLS:?}" "${CACHE:?}" "${REGISTRY_ADDR:?}"
LOCAL_VERSION="${LOCAL_VERSION:-0.0.0}"
source image/local/lib.sh
export PATH="$TOOLS:$PATH"

work="$CACHE/release"
rm -rf "$work" && mkdir -p "$work"

start_registry
build_base

# A throwaway key pair, never kept.
(cd "$work" && COSIGN_PASSWORD="" cosign generate-key-pair >/dev/null 2>&1)
export COSIGN_PASSWORD=""

git clone -q --no-hardlinks . "$work/src"
git -C "$work/src" -c user.name=release-local -c user.email=release-local@localhost \
	tag -a "v$LOCAL_VERSION" -m "local release check"

python3 - "$work/src/.goreleaser.yaml" "$REG" "$BASE_REF" "$work/cosign.key" <<'PY'
import re, sys
path, reg, base, key = sys.argv[1:]
s = open(path).read()
def sub(old, new):
    global s
    if old not in s:
        sys.exit(f"release-local: {old!r} not found in .goreleaser.yaml; update image/local/release-local.sh")
    s = s.replace(old, new)
sub("      - ghcr.io/cortex-mcp/cortex\n", f"      - {reg}/cortex\n")
s, n = re.subn(r"base_image: \S+", f"base_image: {base}", s)
assert n == 1, "base_image"
sub("      - sign-blob\n", f"      - sign-blob\n      - --key={key}\n      - --tlog-upload=false\n      - --use-signing-config=false\n")
sub("      - sign\n", f"      - sign\n      - --key={key}\n      - --tlog-upload=false\n      - --use-signing-config=false\n      - --allow-http-registry\n")
i = s.index("\nrelease:\n")
j = s.index("\nchangelog:")
s = s[:i] + "\nrelease:\n  disable: true\n" + s[j:]
open(path, "w").write(s)
PY

echo "goreleaser release (v$LOCAL_VERSION, local config)"
(cd "$work/src" && goreleaser release --clean --skip=announce,validate -p 2 >"$work/goreleaser.log" 2>&1) ||
	{ tail -60 "$work/goreleaser.log"; exit 1; }
dist="$work/src/dist"

echo "artifacts:"
for f in "$dist"/*.tar.gz "$dist"/*.cdx.json "$dist"/checksums.txt*; do
	printf '  %9d  %s\n' "$(stat -c %s "$f")" "${f##*/}"
done

echo "checksums:"
(cd "$dist" && sha256sum -c checksums.txt | sed 's/^/  /')

echo "SBOMs:"
for f in "$dist"/*.cdx.json; do
	python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d.get("bomFormat") == "CycloneDX", "not CycloneDX"
names = {c.get("name") for c in d.get("components", [])}
for want in ("modernc.org/sqlite", "github.com/modelcontextprotocol/go-sdk", "golang.org/x/crypto"):
    assert want in names, f"{want} missing from the SBOM"
print(f"  {sys.argv[1].rsplit('/', 1)[1]}: CycloneDX {d.get('specVersion')}, {len(names)} components")
PY
done

echo "cosign verify-blob checksums.txt:"
cosign verify-blob --key "$work/cosign.pub" --insecure-ignore-tlog=true \
	--bundle "$dist/checksums.txt.sigstore.json" "$dist/checksums.txt" 2>&1 | sed 's/^/  /'

image="$REG/cortex:$LOCAL_VERSION"
echo "image $image@$("$crane" digest "$image")"
platform_sizes "$image"
bin="$work/image-amd64"
mkdir -p "$bin"
"$crane" export --platform linux/amd64 "$image" - 2>>"$CACHE/crane.log" | tar -x -C "$bin" 2>/dev/null
# -trimpath keeps -ldflags out of the build info, so ask the binary itself.
stamp=$("$bin/ko-app/cortex" version)
echo "  linux/amd64 binary: $(file -b "$bin/ko-app/cortex" | grep -o 'statically linked.*stripped' | sed 's/, Go BuildID=[^,]*//; s/, BuildID\[sha1\]=[^,]*//'); \`cortex version\`: $stamp"
[ "$stamp" = "cortex $LOCAL_VERSION" ] || { echo "the image's binary is not stamped with $LOCAL_VERSION" >&2; exit 1; }
echo "cosign verify $image:"
cosign verify --key "$work/cosign.pub" --insecure-ignore-tlog=true --allow-http-registry "$image" 2>&1 |
	python3 -c 'import sys,json
out = sys.stdin.read()
start = out.find("[")
print("  " + out[:start].strip().replace("\n", "\n  "))
for s in json.loads(out[start:]):
    print("  signed:", s["critical"]["image"]["docker-manifest-digest"])'
echo "registry tags (SBOMs and signatures attached by digest): $("$crane" ls "$REG/cortex" | tr '\n' ' ')"
echo "make release-local: ok"
