package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Schemas are derived from fixed Go types, so they are computed once per
// process and shared, read-only, by every session's server: building them
// anew for each session costs milliseconds and megabytes, which a small
// board serving clients that open many sessions should not pay. These
// memos and writeTools are the package's only package-level values, and
// none ever changes what a caller observes.
var (
	schemaCache   = mcp.NewSchemaCache()
	outputSchemas sync.Map // reflect.Type -> *jsonschema.Schema
	// encodedSchemas are the schemas as tools/list sends them.
	encodedSchemas sync.Map // *jsonschema.Schema (or one with a view) -> json.RawMessage
)

// encodedSchema returns sch encoded, once for each schema: a tool lists
// its schemas encoded, not as *jsonschema.Schema, because the schema
// library encodes one level at a time, each through json.Marshal, and
// every tools/list encoded all of them again (some 800 kB of garbage for
// the nineteen tools), as did the SDK's check of the parameter headers
// of every 2026-07-28 call it serves.
func encodedSchema(sch *jsonschema.Schema) json.RawMessage {
	return encodedOnce(sch, func() *jsonschema.Schema { return sch })
}

// encodedOnce returns the schema build gives encoded, built and encoded
// only the first time key is asked for.
func encodedOnce(key any, build func() *jsonschema.Schema) json.RawMessage {
	if b, ok := encodedSchemas.Load(key); ok {
		return b.(json.RawMessage)
	}
	b, err := json.Marshal(build())
	if err != nil {
		panic(fmt.Sprintf("tools: schema: %v", err))
	}
	got, _ := encodedSchemas.LoadOrStore(key, json.RawMessage(b))
	return got.(json.RawMessage)
}

// outputSchema returns the memoised output schema of Out.
func outputSchema[Out any]() *jsonschema.Schema {
	rt := reflect.TypeFor[Out]()
	if s, ok := outputSchemas.Load(rt); ok {
		return s.(*jsonschema.Schema)
	}
	s, _ := outputSchemas.LoadOrStore(rt, buildOutputSchema[Out]())
	return s.(*jsonschema.Schema)
}

// buildOutputSchema infers the schema of Out and lets it also describe an
// error result: the "error" property is added, and the required success
// fields become one alternative of an anyOf whose other alternative
// requires "error".
func buildOutputSchema[Out any]() *jsonschema.Schema {
	sch, err := jsonschema.For[Out](nil)
	if err != nil {
		// Out types are fixed at compile time; a failure is a programming
		// error caught by every test.
		panic(fmt.Sprintf("tools: output schema: %v", err))
	}
	errSch, err := jsonschema.For[toolError](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: error schema: %v", err))
	}
	errSch.Description = "present instead of the other fields when the call failed"
	if sch.Properties == nil {
		sch.Properties = map[string]*jsonschema.Schema{}
	}
	sch.Properties["error"] = errSch
	singleTypes(sch)
	if len(sch.Required) > 0 {
		sch.AnyOf = []*jsonschema.Schema{
			{Required: sch.Required},
			{Required: []string{"error"}},
		}
		sch.Required = nil
	}
	return sch
}

// singleTypes rewrites every nullable type the schema inference gives a
// slice, map or pointer (type ["null", "array"]) into the one non-null type:
// a missing value is absent, never null, in what cortex sends and accepts,
// and single-type schema dialects (Gemini's) and strict checkers (the MCP
// Inspector's --strict) refuse or warn about type lists.
func singleTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		for _, t := range s.Types {
			if t != "null" {
				s.Type = t
			}
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		singleTypes(p)
	}
	for _, list := range [][]*jsonschema.Schema{s.PrefixItems, s.AllOf, s.AnyOf, s.OneOf} {
		for _, x := range list {
			singleTypes(x)
		}
	}
	for _, d := range s.Defs {
		singleTypes(d)
	}
	singleTypes(s.Items)
	singleTypes(s.AdditionalProperties)
}
