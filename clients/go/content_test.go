package a4aa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Prompt content through a real sidecar: an embedded file and a link reach the generic echo
// CLI as text; an image, which it cannot take, is refused with unsupported_content.
func TestPromptContent(t *testing.T) {
	c := startSidecar(t, Options{})
	root := repoRoot(t)
	echo := echoCliSpec(t)
	open, err := c.SessionOpen(testCtx(t), SessionOpenParams{Spec: echo, Cwd: Ptr(root)})
	if err != nil {
		t.Fatal(err)
	}
	if !open.Capabilities.Content.Resource || open.Capabilities.Content.Image {
		t.Fatalf("capabilities.content %+v", open.Capabilities.Content)
	}
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("remember the colour\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := FileResource(notes)
	if err != nil {
		t.Fatal(err)
	}
	link, err := FileLink(notes)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.SessionPrompt(testCtx(t), Prompt(open.SessionID, "Read:", res, link))
	if err != nil {
		t.Fatal(err)
	}
	want := "[Embedded file file://" + notes + "]\nremember the colour\n[End of file://" + notes + "]\n\n[Linked file \"notes.txt\": " + notes + "]"
	if out.Text == nil || !strings.Contains(*out.Text, want) {
		t.Fatalf("the echo got %q, want it to hold %q", *out.Text, want)
	}

	png := filepath.Join(dir, "dot.png")
	if err := os.WriteFile(png, []byte("\x89PNG\r\n\x1a\nnot really"), 0o600); err != nil {
		t.Fatal(err)
	}
	img, err := ImageFile(png)
	if err != nil || img.MimeType != ImageContentMimeTypeImagePng {
		t.Fatalf("ImageFile: %+v %v", img, err)
	}
	if _, err := ImageFile(filepath.Join(dir, "x.bmp")); err == nil {
		t.Fatal("a .bmp was taken as an image")
	}
	_, err = c.SessionPrompt(testCtx(t), Prompt(open.SessionID, "", img))
	if !IsCode(err, "unsupported_content") {
		t.Fatalf("an image to a text-only CLI: %v", err)
	}
}
