package main

import (
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "go.yaml.in/yaml/v3"
	_ "modernc.org/sqlite"
)

func main() {}
