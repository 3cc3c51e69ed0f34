package card

import (
	"errors"
	"fmt"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Content is one immutable content block in the ACP/MCP ContentBlock shape:
// text, image, audio, resource_link or resource. It is a lossless JSON object
// underneath, so it marshals to exactly the wire shape and can be shared
// freely. The zero Content is invalid.
type Content struct{ v jsonv.Value }

// The content block types.
const (
	TypeText         = "text"
	TypeImage        = "image"
	TypeAudio        = "audio"
	TypeResourceLink = "resource_link"
	TypeResource     = "resource"
)

// ErrInvalidContent wraps every rejection of a content block's shape.
var ErrInvalidContent = errors.New("invalid content block")

// Text returns a text block. Invalid UTF-8 is replaced by U+FFFD, since a
// text block must be valid JSON.
func Text(s string) Content {
	v, err := jsonv.StringValue(s)
	if err != nil {
		v = jsonv.MustString(toValidUTF8(s))
	}
	return Content{jsonv.MustObject(jsonv.Member{Key: "type", Value: jsonv.MustString(TypeText)}, jsonv.Member{Key: "text", Value: v})}
}

// Image returns an image block with base64 data.
func Image(base64Data, mimeType string) Content {
	return Content{jsonv.MustObject(
		jsonv.Member{Key: "type", Value: jsonv.MustString(TypeImage)},
		jsonv.Member{Key: "data", Value: jsonv.MustString(toValidUTF8(base64Data))},
		jsonv.Member{Key: "mimeType", Value: jsonv.MustString(toValidUTF8(mimeType))},
	)}
}

// required lists each block type's required string fields.
var required = map[string][]string{
	TypeText:         {"text"},
	TypeImage:        {"data", "mimeType"},
	TypeAudio:        {"data", "mimeType"},
	TypeResourceLink: {"name", "uri"},
	TypeResource:     nil, // "resource" is an object, checked below
}

// ContentFromValue checks that v has a content block's shape and wraps it.
func ContentFromValue(v jsonv.Value) (Content, error) {
	if v.Kind() != jsonv.Object {
		return Content{}, fmt.Errorf("%w: must be an object", ErrInvalidContent)
	}
	t, _ := v.Get("type")
	fields, known := required[t.Str()]
	if t.Kind() != jsonv.String || !known {
		return Content{}, fmt.Errorf("%w: unknown type %s", ErrInvalidContent, t)
	}
	for _, f := range fields {
		if fv, ok := v.Get(f); !ok || fv.Kind() != jsonv.String {
			return Content{}, fmt.Errorf("%w: %s block needs a string %q", ErrInvalidContent, t.Str(), f)
		}
	}
	if t.Str() == TypeResource {
		if r, ok := v.Get("resource"); !ok || r.Kind() != jsonv.Object {
			return Content{}, fmt.Errorf("%w: resource block needs a \"resource\" object", ErrInvalidContent)
		}
	}
	return Content{v}, nil
}

// IsValid reports whether c holds a block.
func (c Content) IsValid() bool { return c.v.IsValid() }

// Type returns the block type ("text", "image", …).
func (c Content) Type() string {
	t, _ := c.v.Get("type")
	return t.Str()
}

// TextValue returns a text block's text; "" for other types.
func (c Content) TextValue() string {
	if c.Type() != TypeText {
		return ""
	}
	t, _ := c.v.Get("text")
	return t.Str()
}

// Value returns the block as a JSON value.
func (c Content) Value() jsonv.Value { return c.v }

// MarshalJSON implements json.Marshaler.
func (c Content) MarshalJSON() ([]byte, error) { return c.v.MarshalJSON() }

// AppendJSON writes the block as it is (jsonv.AppendGo's one-pass path).
func (c Content) AppendJSON(dst []byte) ([]byte, error) {
	if !c.v.IsValid() {
		return nil, errors.New("card: empty content block")
	}
	return c.v.AppendJSON(dst), nil
}

// UnmarshalJSON implements json.Unmarshaler, strictly.
func (c *Content) UnmarshalJSON(data []byte) error {
	v, err := jsonv.Parse(data)
	if err != nil {
		return err
	}
	parsed, err := ContentFromValue(v)
	if err != nil {
		return err
	}
	*c = parsed
	return nil
}

// ContentsFromValue converts a JSON array of blocks.
func ContentsFromValue(v jsonv.Value) ([]Content, error) {
	if v.Kind() != jsonv.Array {
		return nil, fmt.Errorf("%w: content must be an array", ErrInvalidContent)
	}
	out := make([]Content, 0, v.Len())
	for i, it := range v.All() {
		c, err := ContentFromValue(it)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func toValidUTF8(s string) string {
	if _, err := jsonv.StringValue(s); err == nil {
		return s
	}
	b := make([]rune, 0, len(s))
	for _, r := range s {
		b = append(b, r) // invalid bytes decode as U+FFFD
	}
	return string(b)
}
