package model

import (
	"fmt"
	"strconv"
	"strings"
)

// tokKind classifies expression tokens.
type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tStr
	tIdent
	tKeyword
	tOp // punctuation and operators
)

// token is one lexical token; off is its byte offset in the expression.
type token struct {
	kind tokKind
	text string // source text (operators, identifiers, keywords)
	off  int
	end  int
	ival int64
	sval string
}

func (t token) String() string {
	if t.kind == tEOF {
		return "end of expression"
	}
	return fmt.Sprintf("%q", t.text)
}

func isKeyword(s string) bool {
	switch s {
	case "all", "some", "count", "in", "not", "and", "or", "node", "nodes", "alive", "len", "true", "false":
		return true
	}
	return false
}

// exprError is an error at a byte offset of the expression.
type exprError struct {
	off int
	msg string
}

func (e *exprError) Error() string { return e.msg }

func lex(src string) ([]token, error) {
	var toks []token
	for i := 0; ; {
		for i < len(src) && strings.IndexByte(" \t\r\n", src[i]) >= 0 {
			i++
		}
		if i >= len(src) {
			return append(toks, token{kind: tEOF, off: len(src), end: len(src)}), nil
		}
		t, err := lexOne(src, i)
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		i = t.end
	}
}

func lexOne(src string, i int) (token, error) {
	c := src[i]
	switch {
	case c >= '0' && c <= '9':
		return lexInt(src, i)
	case c == '"':
		return lexStr(src, i)
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		j := i + 1
		for j < len(src) && isBareKey(src[j]) && src[j] != '-' {
			j++
		}
		k := tIdent
		if isKeyword(src[i:j]) {
			k = tKeyword
		}
		return token{kind: k, text: src[i:j], off: i, end: j}, nil
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "=>"} {
		if strings.HasPrefix(src[i:], op) {
			return token{kind: tOp, text: op, off: i, end: i + 2}, nil
		}
	}
	if strings.IndexByte("()[],.:<>+-*/%", c) >= 0 {
		return token{kind: tOp, text: src[i : i+1], off: i, end: i + 1}, nil
	}
	if c == '=' {
		return token{}, &exprError{i, "unexpected '=' (use == to compare)"}
	}
	r := []rune(src[i:min(len(src), i+4)])
	return token{}, &exprError{i, fmt.Sprintf("unexpected character %q", r[0])}
}

func lexInt(src string, i int) (token, error) {
	j := i
	for j < len(src) && (isBareKey(src[j]) && src[j] != '-') {
		j++
	}
	n, err := strconv.ParseInt(src[i:j], 0, 64)
	if err != nil {
		return token{}, &exprError{i, fmt.Sprintf("bad integer %q", src[i:j])}
	}
	return token{kind: tInt, text: src[i:j], off: i, end: j, ival: n}, nil
}

func lexStr(src string, i int) (token, error) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			s, err := strconv.Unquote(src[i : j+1])
			if err != nil {
				return token{}, &exprError{i, "bad escape in string literal"}
			}
			return token{kind: tStr, text: src[i : j+1], off: i, end: j + 1, sval: s}, nil
		case '\n':
			return token{}, &exprError{i, "unterminated string literal"}
		}
	}
	return token{}, &exprError{i, "unterminated string literal"}
}
