package a4aa

// Prompt content (protocol 1.2): helpers that build session/prompt's params and its
// content blocks from text, image bytes and files.

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Prompt is session/prompt's params for a text and, after it, content blocks:
//
//	img, _ := a4aa.ImageFile("shot.png")
//	out, err := client.SessionPrompt(ctx, a4aa.Prompt(id, "What is in the picture?", img))
//
// An empty text is left out (the content alone is the prompt).
func Prompt(sessionID SessionId, text string, content ...ContentBlock) SessionPromptParams {
	p := SessionPromptParams{SessionID: sessionID}
	if text != "" {
		p.Text = &text
	}
	if len(content) > 0 {
		p.Content = content
	}
	return p
}

// Image is an image block of these bytes (mimeType: image/png, image/jpeg, image/gif or image/webp).
func Image(data []byte, mimeType ImageContentMimeType) ImageContent {
	return ImageContent{MimeType: mimeType, Data: base64.StdEncoding.EncodeToString(data)}
}

var imageTypes = map[string]ImageContentMimeType{
	".png": ImageContentMimeTypeImagePng, ".jpg": ImageContentMimeTypeImageJpeg, ".jpeg": ImageContentMimeTypeImageJpeg,
	".gif": ImageContentMimeTypeImageGif, ".webp": ImageContentMimeTypeImageWebp,
}

// ImageFile reads an image file; its mime type comes from the extension (.png, .jpg, .jpeg, .gif, .webp).
func ImageFile(path string) (ImageContent, error) {
	mime, ok := imageTypes[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return ImageContent{}, fmt.Errorf("a4aa: %s: not a png, jpeg, gif or webp image (by its extension)", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ImageContent{}, err
	}
	return Image(data, mime), nil
}

// FileURI is the file:// uri of a path (made absolute).
func FileURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// FileResource embeds a text file's contents, named by its file:// uri.
func FileResource(path string) (ResourceContent, error) {
	uri, err := FileURI(path)
	if err != nil {
		return ResourceContent{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ResourceContent{}, err
	}
	return ResourceContent{URI: uri, Text: string(data)}, nil
}

// FileLink links a file the agent can read itself (its name: the file's base name).
func FileLink(path string) (ResourceLinkContent, error) {
	uri, err := FileURI(path)
	if err != nil {
		return ResourceLinkContent{}, err
	}
	name := filepath.Base(path)
	return ResourceLinkContent{URI: uri, Name: &name}, nil
}
