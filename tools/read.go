package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// Read caps (contract §4).
const (
	ReadLimit         = 2000      // default and maximum lines per call
	ReadMaxLineLength = 2000      // characters per line before truncation
	ReadMaxBytes      = 50 * 1024 // bytes of selected output, newlines included
)

type readArgs struct {
	FilePath string   `json:"file_path" desc:"Path to read: absolute, or relative to the workspace."`
	Offset   *float64 `json:"offset,omitempty" desc:"1-based first line to return. Defaults to 1."`
	Limit    *float64 `json:"limit,omitempty" desc:"Maximum number of lines to return. Defaults to 2000."`
}

type readValue struct {
	Path       string         `json:"path"`
	Offset     int            `json:"offset"`
	Lines      card.ReadLines `json:"lines"`
	TotalLines int            `json:"totalLines"`
}

type readInput struct {
	path          string
	offset, limit int
}

func positiveInt(v *float64, name string, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < 1 || *v != float64(int(*v)) {
		return 0, errors.New(name + " must be a positive integer")
	}
	return int(*v), nil
}

func parseReadArgs(a readArgs) (readInput, error) {
	if strings.TrimSpace(a.FilePath) == "" {
		return readInput{}, errors.New("file_path must be a non-empty string")
	}
	offset, err := positiveInt(a.Offset, "offset", 1)
	if err != nil {
		return readInput{}, err
	}
	limit, err := positiveInt(a.Limit, "limit", ReadLimit)
	if err != nil {
		return readInput{}, err
	}
	if limit > ReadLimit {
		return readInput{}, fmt.Errorf("limit must be less than or equal to %d", ReadLimit)
	}
	return readInput{a.FilePath, offset, limit}, nil
}

func fsError(code, msg string) error { return registry.NewError("FsError", code, msg) }

// statFile returns a regular file's info or the contract's FS error.
func statFile(ctx context.Context, h Host, path, verb string) (fs.FileInfo, error) {
	info, err := h.Stat(ctx, path)
	if err == nil && !info.Mode().IsRegular() {
		err = workspace.ErrNotRegular
	}
	if err != nil {
		return nil, FileError(err, verb, path)
	}
	return info, nil
}

// binarySample is how much of a file's start is searched for a NUL byte:
// one there makes it a binary file, as in the reference.
const binarySample = 8192

// formatRead renders the model-facing read envelope.
func formatRead(v readValue, capped bool) string {
	end := max(0, v.Offset-1)
	if n := len(v.Lines); n > 0 {
		end = v.Lines[n-1].Number
	}
	var footer string
	switch {
	case capped:
		footer = fmt.Sprintf("(Output capped. Showing lines %d-%d. Use offset=%d to continue.)", v.Offset, end, end+1)
	case end < v.TotalLines:
		footer = fmt.Sprintf("(Showing lines %d-%d of %d. Use offset=%d to continue.)", v.Offset, end, v.TotalLines, end+1)
	default:
		footer = fmt.Sprintf("(End of file - total %d lines)", v.TotalLines)
	}
	// One allocation of exactly the text's size: the text is most of what
	// a read costs the bridge, and the history keeps it (a builder's
	// slack would be kept with it).
	// The path is a file's name, which a workspace may choose: its
	// envelope tags are neutralised as edit's are.
	v.Path = neutral(v.Path)
	var b strings.Builder
	b.Grow(readTextSize(v, footer))
	b.WriteString("<path>")
	b.WriteString(v.Path)
	b.WriteString(readHead)
	var num [20]byte
	for _, l := range v.Lines {
		b.Write(strconv.AppendInt(num[:0], int64(l.Number), 10))
		b.WriteString(": ")
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	if len(v.Lines) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(footer)
	b.WriteString(readTail)
	return b.String()
}

const readHead, readTail = "</path>\n<type>file</type>\n<content>\n", "\n</content>"

// readTextSize is the length of formatRead's text.
func readTextSize(v readValue, footer string) int {
	size := len("<path>") + len(v.Path) + len(readHead) + len(footer) + len(readTail)
	for _, l := range v.Lines {
		size += digits(l.Number) + len(": \n") + len(l.Text)
	}
	if len(v.Lines) > 0 {
		size++
	}
	return size
}

// digits is the length of the decimal form of n.
func digits(n int) int {
	d := 1
	if n < 0 {
		d, n = 2, -n
	}
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

var langByExt = map[string]string{
	"ts": "ts", "tsx": "tsx", "mts": "ts", "cts": "ts", "js": "js", "jsx": "jsx", "mjs": "js", "cjs": "js",
	"json": "json", "jsonc": "json", "py": "py", "rb": "rb", "go": "go", "rs": "rs", "java": "java",
	"c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "hpp": "cpp", "cxx": "cpp", "cs": "cs", "kt": "kotlin",
	"swift": "swift", "php": "php", "sh": "sh", "bash": "sh", "zsh": "sh", "yaml": "yaml", "yml": "yaml",
	"toml": "toml", "ini": "ini", "md": "md", "markdown": "md", "mdx": "mdx", "html": "html", "htm": "html",
	"css": "css", "scss": "scss", "less": "less", "sql": "sql", "xml": "xml", "lua": "lua",
}

// langFromPath is the highlighting hint of a path's extension; dotfiles and
// unknown extensions have none.
func langFromPath(p string) string {
	base := filepath.Base(p)
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 {
		return ""
	}
	return langByExt[strings.ToLower(base[dot+1:])]
}

// isEnvelope reports whether text has the shape formatRead gives: a read
// result whose content a listener replaced gets the generic card instead.
func isEnvelope(text string) bool {
	rest, ok := strings.CutPrefix(text, "<path>")
	if !ok {
		return false
	}
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 || !strings.HasSuffix(rest[:nl], "</path>") {
		return false
	}
	rest, ok = strings.CutPrefix(rest[nl:], "\n<type>file</type>\n<content>\n")
	return ok && strings.HasSuffix(rest, "\n</content>")
}

// readMeta is the read tool's presentation meta.
type readMeta struct {
	Path       string         `json:"path"`
	Offset     int            `json:"offset"`
	Lines      card.ReadLines `json:"lines"`
	TotalLines int            `json:"totalLines"`
	Lang       string         `json:"lang,omitempty"`
}

// readMetaOf is the presentation meta of v: the value's own members
// (shared, not converted again: the lines are most of a read's bytes)
// and the language.
func readMetaOf(v readValue, value jsonv.Value) (jsonv.Value, error) {
	m := readMeta{Path: v.Path, Offset: v.Offset, Lines: v.Lines, TotalLines: v.TotalLines, Lang: langFromPath(v.Path)}
	members := make([]jsonv.Member, 0, 5)
	for _, k := range []string{"path", "offset", "lines", "totalLines"} {
		part, ok := value.Get(k)
		if !ok {
			return jsonv.FromGoOrigin(m)
		}
		members = append(members, jsonv.Member{Key: k, Value: part})
	}
	if m.Lang != "" {
		members = append(members, jsonv.Member{Key: "lang", Value: jsonv.MustString(m.Lang)})
	}
	meta, err := jsonv.ObjectValue(members...)
	if err != nil {
		return jsonv.Value{}, err
	}
	return meta.WithOrigin(m), nil
}

func newRead(h Host, w *workspace.Workspace, chk Checker) (*registry.Tool, error) {
	t, err := registry.Define(registry.TypedTool[readArgs, readValue]{
		Name:        "read",
		Description: "Read a UTF-8 text file and return line-numbered content. Use offset and limit to continue reading large files.",
		Execute: func(ctx context.Context, a readArgs, _ registry.RunContext) (readValue, error) {
			in, err := parseReadArgs(a)
			if err != nil {
				return readValue{}, err
			}
			path := w.Abs(in.path)
			f, err := openRegular(ctx, h, path, "read")
			if err != nil {
				var te *registry.Error
				if errors.As(err, &te) {
					return readValue{}, err
				}
				return readValue{}, fsError("FS_IO_ERROR", fmt.Sprintf("cannot read %q: %v", path, err))
			}
			defer f.Close()
			if chk != nil {
				chk.Touch(path) // its server loads while the model reads
			}
			br := readerPool.Get().(*bufio.Reader)
			br.Reset(f)
			defer func() { br.Reset(nil); readerPool.Put(br) }()
			if head, _ := br.Peek(binarySample); bytes.IndexByte(head, 0) >= 0 {
				return readValue{}, fsError("FS_NOT_TEXT", fmt.Sprintf("cannot read %q: binary file", path))
			}
			v, _, err := window(br, in, path)
			return v, err
		},
		Render: func(a readArgs, v readValue) ([]card.Content, error) {
			in, err := parseReadArgs(a)
			if err != nil {
				return nil, err
			}
			end := max(0, v.Offset-1)
			if n := len(v.Lines); n > 0 {
				end = v.Lines[n-1].Number
			}
			return []card.Content{card.Text(formatRead(v, len(v.Lines) < in.limit && end < v.TotalLines))}, nil
		},
		PresentationMeta: func(_ readArgs, v readValue, value jsonv.Value) (jsonv.Value, error) {
			return readMetaOf(v, value)
		},
		IsConcurrencySafe: func(readArgs) bool { return true },
		PresentCall: func(a readArgs) card.CallView {
			suffix := ""
			offset := 1
			if a.Offset != nil {
				offset = int(*a.Offset)
			}
			switch {
			case a.Limit != nil && *a.Limit > 0:
				suffix = fmt.Sprintf(" (%d - %d)", offset, offset+int(*a.Limit)-1)
			case a.Offset != nil:
				suffix = fmt.Sprintf(" (from line %d)", offset)
			}
			return &card.Generic{Title: "Read " + a.FilePath + suffix, Kind: card.KindRead, Locations: []card.FileLocation{{Path: a.FilePath, Line: offset}}}
		},
		PresentResult: func(_ readArgs, r registry.ToolResult) card.ResultView {
			if r.IsError || len(r.Content) != 1 || r.Content[0].Type() != card.TypeText {
				return nil
			}
			// The meta this process just built comes back as it was; a
			// logged one (a replay) is decoded.
			m, ok := r.Meta.Origin().(readMeta)
			if !ok && (!r.Meta.IsValid() || r.Meta.Decode(&m) != nil) {
				return nil
			}
			if m.Offset < 1 || m.TotalLines < 0 || m.Lines == nil {
				return nil
			}
			prev := 0
			for _, l := range m.Lines {
				if l.Number <= prev || l.Number < m.Offset || l.Number > m.TotalLines {
					return nil
				}
				prev = l.Number
			}
			if !isEnvelope(r.Content[0].TextValue()) {
				return nil
			}
			// The text travels once, in Lines: no Content fallback.
			return &card.Read{Path: m.Path, Offset: m.Offset, Lines: m.Lines, TotalLines: m.TotalLines, Lang: m.Lang}
		},
	})
	if err != nil {
		return nil, err
	}
	t.Accesses = func(args jsonv.Value) []registry.Access { return pathAccess(args, "file_path", false) }
	return t, nil
}

// pathAccess declares the path in argument key (when it is a string).
func pathAccess(args jsonv.Value, key string, write bool) []registry.Access {
	p, ok := args.Get(key)
	if !ok || p.Kind() != jsonv.String || strings.TrimSpace(p.Str()) == "" {
		return nil
	}
	return []registry.Access{{Path: p.Str(), Write: write}}
}
