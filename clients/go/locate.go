package a4aa

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ErrSidecarNotFound is returned by Start (and SidecarCommand) when no command was given
// and no sidecar could be found; its text says the three ways to provide one.
var ErrSidecarNotFound = errors.New("a4aa: cannot find the sidecar to start. Either set A4AA_SERVE to the command that " +
	`starts it (e.g. A4AA_SERVE="node /path/to/a4aa/dist/src/cli/main.js serve") or set Options.Command; ` +
	"or install the npm package beside this host (npm install a4aa, giving node_modules/.bin/a4aa in " +
	"this folder or a parent); or put npx on PATH with a4aa installed where it finds it (npx --no-install a4aa serve)")

// SidecarCommand is the command Start runs when Options.Command is empty, in this order:
// $A4AA_SERVE (split on whitespace), node_modules/.bin/a4aa in dir (or this process's
// working directory) or a parent, a4aa on PATH, then npx --no-install a4aa serve.
// env is the environment to read A4AA_SERVE and PATH from (nil: this process's).
func SidecarCommand(env []string, dir string) ([]string, error) {
	get := os.Getenv
	if env != nil {
		get = func(name string) string {
			for i := len(env) - 1; i >= 0; i-- {
				if strings.HasPrefix(env[i], name+"=") {
					return env[i][len(name)+1:]
				}
			}
			return ""
		}
	}
	if explicit := strings.Fields(get("A4AA_SERVE")); len(explicit) > 0 {
		return explicit, nil
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		for d := abs; ; d = filepath.Dir(d) {
			candidate := filepath.Join(d, "node_modules", ".bin", "a4aa")
			if isExecutable(candidate) {
				return []string{candidate, "serve"}, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if p := lookPath("a4aa", get("PATH")); p != "" {
		return []string{p, "serve"}, nil
	}
	if p := lookPath("npx", get("PATH")); p != "" {
		return []string{p, "--no-install", "a4aa", "serve"}, nil
	}
	return nil, ErrSidecarNotFound
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// lookPath is exec.LookPath over an explicit PATH value.
func lookPath(name, path string) string {
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			continue
		}
		if p := filepath.Join(d, name); isExecutable(p) {
			return p
		}
	}
	return ""
}
