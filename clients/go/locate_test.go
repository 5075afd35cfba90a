package a4aa

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeExe(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSidecarCommandOrder(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools")
	deep := filepath.Join(dir, "host", "cmd")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	check := func(env []string, want []string) {
		t.Helper()
		got, err := SidecarCommand(env, deep)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("SidecarCommand(%v) = %v, %v; want %v", env, got, err, want)
		}
	}
	_, err := SidecarCommand([]string{"PATH=" + tools}, deep)
	if !errors.Is(err, ErrSidecarNotFound) {
		t.Fatalf("nothing installed: err = %v", err)
	}
	for _, s := range []string{"A4AA_SERVE", "npm pack", filepath.Join(deep, "node_modules", ".bin", "a4aa"), filepath.Join(dir, "node_modules", ".bin", "a4aa"), "a4aa on PATH"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the not-found error does not mention %q: %v", s, err)
		}
	}
	// npx on PATH is never used: it would ask the registry for a package that may not be published.
	writeExe(t, filepath.Join(tools, "npx"))
	if got, err := SidecarCommand([]string{"PATH=" + tools}, deep); !errors.Is(err, ErrSidecarNotFound) {
		t.Fatalf("with only npx on PATH: %v, %v; want ErrSidecarNotFound", got, err)
	}
	onPath := writeExe(t, filepath.Join(tools, "a4aa"))
	check([]string{"PATH=" + tools}, []string{onPath, "serve"})
	beside := writeExe(t, filepath.Join(dir, "host", "node_modules", ".bin", "a4aa"))
	check([]string{"PATH=" + tools}, []string{beside, "serve"})
	check([]string{"PATH=" + tools, "A4AA_SERVE=node /x/main.js serve"}, []string{"node", "/x/main.js", "serve"})
}

func TestStartFindsTheSidecarFromA4AAServe(t *testing.T) {
	env := append(os.Environ(), "A4AA_SERVE="+strings.Join(sidecarCommand(t), " "))
	c, err := Start(Options{Env: env, Stderr: newTestLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Ping(testCtx(t), PingParams{})
	if err != nil || res.Protocol() != "a4aa.v1" {
		t.Fatalf("ping = %+v, %v", res, err)
	}
}
