// Package deploytest holds no code: its tests read the deployment files
// (image/compose.yaml, image/cortex.service, ko.yaml, .goreleaser.yaml, the
// GitHub workflows) and check that they say what cortex's security and
// operations promises need, so an edit that drops a hardening line or an
// unpinned action fails `make test`. It must never be imported.
package deploytest
