# Shared by image.sh and release-local.sh: a loopback registry and a
# distroless-like non-root base assembled locally with crane, because remote
# registries are out of reach on the machines that run these gates.
# Expects TOOLS, CACHE, REGISTRY_ADDR in the environment.

crane="$TOOLS/crane"
REG="$REGISTRY_ADDR"
BASE_REF="$REG/cortex-base:nonroot"

# start_registry runs `crane registry serve` on $REG until the script exits.
start_registry() {
	local log="$CACHE/registry.log"
	mkdir -p "$CACHE"
	rm -rf "$CACHE/registry" && mkdir -p "$CACHE/registry"
	"$crane" registry serve --address "$REG" --disk "$CACHE/registry" >"$log" 2>&1 &
	REGISTRY_PID=$!
	trap 'kill "$REGISTRY_PID" 2>/dev/null || true' EXIT
	# Wait (bounded) until it answers.
	for _ in $(seq 1 100); do
		if "$crane" catalog "$REG" >/dev/null 2>&1; then return 0; fi
		if ! kill -0 "$REGISTRY_PID" 2>/dev/null; then cat "$log"; return 1; fi
		sleep 0.1
	done
	echo "registry on $REG did not answer" >&2
	return 1
}

# build_base pushes a three-platform index $BASE_REF: /etc/passwd and
# /etc/group with root and nonroot (65532), CA certificates, a sticky /tmp,
# and /data/vault and /data/state owned by 65532. Like distroless static, it
# has no shell and no package manager. The runtime user is 65532.
build_base() {
	local dir="$CACHE/base"
	rm -rf "$dir" && mkdir -p "$dir"
	python3 - "$dir/layer.tar" <<'PY'
import io, sys, tarfile, time
out = sys.argv[1]
mtime = 0  # reproducible
def add(tf, name, data=None, mode=0o644, uid=0, gid=0, kind=tarfile.REGTYPE):
    ti = tarfile.TarInfo(name)
    ti.mode, ti.uid, ti.gid, ti.mtime, ti.type = mode, uid, gid, mtime, kind
    if data is not None:
        ti.size = len(data)
        tf.addfile(ti, io.BytesIO(data))
    else:
        tf.addfile(ti)
with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as tf:
    D = tarfile.DIRTYPE
    for d in ["etc", "etc/ssl", "etc/ssl/certs", "home", "data"]:
        add(tf, d, mode=0o755, kind=D)
    add(tf, "tmp", mode=0o1777, kind=D)
    add(tf, "home/nonroot", mode=0o700, uid=65532, gid=65532, kind=D)
    add(tf, "data/vault", mode=0o700, uid=65532, gid=65532, kind=D)
    add(tf, "data/state", mode=0o700, uid=65532, gid=65532, kind=D)
    add(tf, "etc/passwd", b"root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")
    add(tf, "etc/group", b"root:x:0:\nnonroot:x:65532:\n")
    add(tf, "etc/nsswitch.conf", b"hosts: files dns\n")
    with open("/etc/ssl/certs/ca-certificates.crt", "rb") as f:
        add(tf, "etc/ssl/certs/ca-certificates.crt", f.read())
PY
	local refs=()
	for p in linux/amd64 linux/arm64 linux/arm/v7; do
		local tag="$REG/cortex-base:${p//\//-}"
		"$crane" append --oci-empty-base -f "$dir/layer.tar" -t "$tag" >/dev/null 2>>"$CACHE/crane.log"
		"$crane" mutate "$tag" --set-platform "$p" --user 65532:65532 \
			--env PATH=/usr/local/bin:/usr/bin:/bin --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
			-t "$tag" >/dev/null 2>>"$CACHE/crane.log"
		refs+=(-m "$tag")
	done
	"$crane" index append "${refs[@]}" -t "$BASE_REF" >/dev/null 2>>"$CACHE/crane.log"
	echo "base: $BASE_REF@$("$crane" digest "$BASE_REF")"
}

# platform_sizes prints, for each platform of an index, its manifest digest
# and the compressed size of config plus layers.
platform_sizes() {
	"$crane" manifest "$1" | python3 -c '
import json, sys, subprocess
idx = json.load(sys.stdin)
repo = sys.argv[1].split("@")[0].rsplit(":", 1)[0] if "@" in sys.argv[1] else sys.argv[1]
for m in idx.get("manifests", []):
    p = m.get("platform", {})
    plat = "/".join(x for x in (p.get("os"), p.get("architecture"), p.get("variant")) if x)
    if plat.startswith("unknown"):
        continue
    man = json.loads(subprocess.check_output([sys.argv[2], "manifest", repo + "@" + m["digest"]]))
    size = man["config"]["size"] + sum(l["size"] for l in man["layers"])
    digest = m["digest"]
    print(f"  {plat:14} {digest}  {size/1e6:6.2f} MB compressed ({size} bytes)")
' "$1" "$crane"
}
