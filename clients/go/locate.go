package a4aa

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrSidecarNotFound is matched (errors.Is) by the error Start and SidecarCommand return when
// no command was given and no sidecar could be found; that error is a *SidecarNotFoundError
// naming every place searched and the ways to provide one.
var ErrSidecarNotFound = errors.New("a4aa: cannot find the sidecar to start")

// SidecarNotFoundError lists the places SidecarCommand looked in, in order.
type SidecarNotFoundError struct{ Searched []string }

func (e *SidecarNotFoundError) Error() string {
	return ErrSidecarNotFound.Error() + "; looked for:\n  " + strings.Join(e.Searched, "\n  ") +
		"\nFix: set A4AA_SERVE to the command that starts it " +
		`(e.g. A4AA_SERVE="node /path/to/a4aa/dist/src/cli/main.js serve") or set Options.Command; ` +
		"or install the package beside this host: in a clone of a4aa run npm pack, then in this host's folder " +
		"npm install /path/to/a4aa-<version>.tgz (node_modules/.bin/a4aa; npm install a4aa once it is published). " +
		"No registry is ever asked (npx is not used)"
}

func (e *SidecarNotFoundError) Is(target error) bool { return target == ErrSidecarNotFound }

// SidecarCommand is the command Start runs when Options.Command is empty, in this order:
// $A4AA_SERVE (split on whitespace), node_modules/.bin/a4aa in dir (or this process's
// working directory) or a parent, then a4aa on PATH. It never falls back to npx or any
// registry. env is the environment to read A4AA_SERVE and PATH from (nil: this process's).
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
	searched := []string{"$A4AA_SERVE (unset)"}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		for d := abs; ; d = filepath.Dir(d) {
			candidate := filepath.Join(d, "node_modules", ".bin", "a4aa")
			if isExecutable(candidate) {
				return []string{candidate, "serve"}, nil
			}
			searched = append(searched, candidate)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if p := lookPath("a4aa", get("PATH")); p != "" {
		return []string{p, "serve"}, nil
	}
	searched = append(searched, fmt.Sprintf("a4aa on PATH (%d folders)", len(filepath.SplitList(get("PATH")))))
	return nil, &SidecarNotFoundError{Searched: searched}
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
