package tools

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{200, 0, 0, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestAttachments(t *testing.T) {
	e := newEnv(t)
	pic := pngBytes(t)
	e.write("Attachments/diagram.png", string(pic))
	e.write("Attachments/fake.png", "not really a png")
	e.write("Attachments/paper.pdf", "%PDF-1.4 tiny")
	e.write("Garden.md", "# Garden\n![[diagram.png]]\n![chart](Attachments/paper.pdf)\n![[Other]]\n![[missing.png]]\n")
	e.write("Other.md", "other\n")

	var l listOut
	e.ok("list", map[string]any{"folder": "Attachments"}, &l)
	if len(l.Entries) != 3 || l.Entries[0].Type != "attachment" || l.Entries[0].MediaType != "image/png" ||
		l.Entries[0].Size != int64(len(pic)) || l.Entries[2].MediaType != "application/pdf" {
		t.Errorf("list = %+v", l.Entries)
	}

	res, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "diagram.png"}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("fetch image: %v %+v", err, res)
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || !bytes.Equal(img.Data, pic) {
		t.Errorf("image content = %+v", res.Content[1])
	}
	var f fetchOut
	e.ok("fetch", map[string]any{"id": "Attachments/diagram.png"}, &f)
	if f.ID != "Attachments/diagram.png" || f.Metadata.MediaType != "image/png" || f.Metadata.Size != len(pic) || f.Metadata.Version == "" {
		t.Errorf("image metadata = %+v", f)
	}

	for id, mt := range map[string]string{"Attachments/paper.pdf": "application/pdf", "fake.png": "text/plain; charset=utf-8"} {
		res, err = e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": id}})
		if err != nil || res.IsError || len(res.Content) != 2 {
			t.Fatalf("fetch %s: %v %+v", id, err, res)
		}
		link, ok := res.Content[1].(*mcp.ResourceLink)
		if !ok || link.MIMEType != mt || !strings.HasSuffix(link.URI, "/notes/Attachments/"+strings.TrimPrefix(id, "Attachments/")) {
			t.Errorf("%s: content = %+v", id, res.Content[1])
		}
	}

	// A PDF says plainly that its text cannot be read here.
	var pdf fetchOut
	e.ok("fetch", map[string]any{"id": "Attachments/paper.pdf"}, &pdf)
	if !strings.HasPrefix(pdf.Text, "PDF of 13 bytes: cortex cannot read the text of PDFs") || pdf.Metadata.MediaType != "application/pdf" {
		t.Errorf("PDF fetch = %q", pdf.Text)
	}

	var lk linksOut
	e.ok("links", map[string]any{"id": "Garden"}, &lk)
	want := []embed{{"Attachments/diagram.png", "diagram.png", 2}, {"Attachments/paper.pdf", "Attachments/paper.pdf", 3}, {"Other.md", "Other", 4}, {"", "missing.png", 5}}
	if len(lk.Embeds) != len(want) {
		t.Fatalf("embeds = %+v", lk.Embeds)
	}
	for i := range want {
		if lk.Embeds[i] != want[i] {
			t.Errorf("embed %d = %+v, want %+v", i, lk.Embeds[i], want[i])
		}
	}

	// Nothing about attachments is writable.
	e.fail("create_note", map[string]any{"path": "Attachments/new.png", "content": "x"}, "not_a_note")
	e.fail("move_note", map[string]any{"id": "Attachments/diagram.png", "to": "x.md", "version": f.Metadata.Version}, "not_a_note")
	e.fail("delete_note", map[string]any{"id": "diagram.png", "version": f.Metadata.Version}, "not_a_note")
	e.fail("append", map[string]any{"id": "Attachments/paper.pdf", "text": "x"}, "not_a_note")
	if e.read("Attachments/diagram.png") != string(pic) {
		t.Error("attachment changed")
	}
}
