// Package bench is the benchmark harness behind `make bench`: it generates
// deterministic synthetic vaults, starts the real cortex binary on loopback
// and drives it over HTTP with a lean keep-alive MCP client, then prints a
// table of latencies, throughput, CPU and memory. It lives entirely in test
// files so that it never ships in the binary; it is not part of `make test`.
package bench
