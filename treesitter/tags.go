package treesitter

// Tags is what a symbol index keeps of one file: its definitions and the
// identifiers it uses.
type Tags struct {
	Language string `json:"language"`
	// Defs are the file's definitions as [Symbols] finds them (functions,
	// methods, classes, types, constants, ...), Parent set for members so
	// a qualified name ("Server.Shutdown") can be matched.
	Defs []Symbol `json:"defs"`
	// Refs are the identifiers of the file's code (comments and strings
	// left out), sorted and unique: names it defines or uses.
	Refs []string `json:"refs"`
}

// identifierTypes are the node types of identifier leaves that are not
// spelled "...identifier" in their grammar.
var identifierTypes = map[string]bool{
	"constant":          true, // ruby
	"name":              true, // php
	"simple_identifier": true, // kotlin, swift
	"word":              true,
}

// isIdentifierType reports the node types [Tags] collects as references.
func isIdentifierType(t string) bool {
	if identifierTypes[t] {
		return true
	}
	n := len("identifier")
	return len(t) >= n && t[len(t)-n:] == "identifier"
}
