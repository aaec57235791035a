# Release gates that run offline on a machine with only the Go module proxy
# and Debian's packages: the vulnerability check against a local database,
# the three-platform image in a loopback registry, the goreleaser run signed
# with a throwaway key, and actionlint. Included by the top-level Makefile;
# also usable alone: make -f docs/release.mk <target>.
#
# Tools are pinned here and installed with `go install` into $(TOOLS).

GO      ?= go
TOOLS   ?= $(CURDIR)/.tools
CACHE   ?= $(CURDIR)/.cache
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
export GOTOOLCHAIN ?= go1.26.10

GOVULNCHECK_VERSION := v1.9.0
VULNDB_VERSION      := v0.0.0-20261105234957-e22db6528018
ACTIONLINT_VERSION  := v1.7.12
KO_VERSION          := v0.19.1
CRANE_VERSION       := v0.22.1
# v2.18 needs Go 1.27.1 or newer to build (the project pins go1.26.10), and
# v2.17 needs go.digitalxero.dev/go-msix, which the module proxy refuses.
# v2.16.0 is the first version whose signed checksums verify.
GORELEASER_VERSION  := v2.16.0
COSIGN_VERSION      := v3.1.3
CYCLONEDX_VERSION   := v1.10.0

# The loopback registry used by `image` and `release-local`.
REGISTRY_ADDR ?= 127.0.0.1:5005

.PHONY: tools-release vulndb vuln actionlint base-digest image release-local

# Each tool is a file named after its version, so bumping a version reinstalls it.
define gotool
$(TOOLS)/$(1)-$(3):
	GOBIN=$(TOOLS) $(GO) install $(2)@$(3)
	touch $$@
$(TOOLS)/$(1): $(TOOLS)/$(1)-$(3)
endef
$(eval $(call gotool,govulncheck,golang.org/x/vuln/cmd/govulncheck,$(GOVULNCHECK_VERSION)))
$(eval $(call gotool,indexdb,golang.org/x/vulndb/cmd/indexdb,$(VULNDB_VERSION)))
$(eval $(call gotool,actionlint,github.com/rhysd/actionlint/cmd/actionlint,$(ACTIONLINT_VERSION)))
$(eval $(call gotool,ko,github.com/google/ko,$(KO_VERSION)))
$(eval $(call gotool,crane,github.com/google/go-containerregistry/cmd/crane,$(CRANE_VERSION)))
$(eval $(call gotool,goreleaser,github.com/goreleaser/goreleaser/v2,$(GORELEASER_VERSION)))
$(eval $(call gotool,cosign,github.com/sigstore/cosign/v3/cmd/cosign,$(COSIGN_VERSION)))
$(eval $(call gotool,cyclonedx-gomod,github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod,$(CYCLONEDX_VERSION)))

## tools-release: every release tool (slow the first time: goreleaser and cosign build from source)
tools-release: $(addprefix $(TOOLS)/,govulncheck indexdb actionlint ko crane goreleaser cosign cyclonedx-gomod)

## vulndb: the Go vulnerability database, built locally from the golang.org/x/vulndb module
vulndb: $(CACHE)/vulndb/$(VULNDB_VERSION)
$(CACHE)/vulndb/$(VULNDB_VERSION): $(TOOLS)/indexdb
	@dir=$$($(GO) mod download -json golang.org/x/vulndb@$(VULNDB_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	  test -d "$$dir/data/osv" || { echo "vulndb: no data/osv in $$dir"; exit 1; }; \
	  rm -rf $(CACHE)/vulndb && mkdir -p $(CACHE)/vulndb/db && \
	  $(TOOLS)/indexdb -vulns "$$dir/data/osv" -out $(CACHE)/vulndb/db
	touch $@

## vuln: govulncheck against the local database (file://), no network but the module proxy
vuln: $(TOOLS)/govulncheck vulndb
	$(TOOLS)/govulncheck -db file://$(CACHE)/vulndb/db ./...

## actionlint: check the GitHub workflows
actionlint: $(TOOLS)/actionlint
	$(TOOLS)/actionlint -no-color .github/workflows/*.yml

## base-digest: print the current digest of the published base (needs gcr.io, so not here)
base-digest: $(TOOLS)/crane
	$(TOOLS)/crane digest gcr.io/distroless/static-debian12:nonroot

## image: three-platform image via ko into a loopback registry on a locally made base, then run it
image: $(TOOLS)/ko $(TOOLS)/crane
	TOOLS=$(TOOLS) CACHE=$(CACHE) VERSION=$(VERSION) REGISTRY_ADDR=$(REGISTRY_ADDR) GO=$(GO) \
	  bash image/local/image.sh

## release-local: goreleaser on a local copy of the config, signed with a throwaway cosign key, then verified
release-local: $(addprefix $(TOOLS)/,ko crane goreleaser cosign cyclonedx-gomod)
	TOOLS=$(TOOLS) CACHE=$(CACHE) REGISTRY_ADDR=$(REGISTRY_ADDR) GO=$(GO) \
	  bash image/local/release-local.sh

## vuln-online: govulncheck against the public database (GitHub CI, which has the network)
.PHONY: vuln-online release-check snapshot tools-goreleaser
vuln-online: $(TOOLS)/govulncheck
	$(TOOLS)/govulncheck ./...

tools-goreleaser: $(addprefix $(TOOLS)/,goreleaser cosign cyclonedx-gomod)

## release-check: goreleaser check of .goreleaser.yaml
release-check: $(TOOLS)/goreleaser
	$(TOOLS)/goreleaser check

## snapshot: goreleaser snapshot build (binaries, archives, SBOMs; no signing, no images)
snapshot: $(TOOLS)/goreleaser $(TOOLS)/cyclonedx-gomod
	PATH="$(TOOLS):$$PATH" $(TOOLS)/goreleaser release --snapshot --clean --skip=sign,ko
