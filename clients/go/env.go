package a4aa

// Inherit is the common sanitized policy: these names copied from the sidecar's environment
// (each must be on the allowlist), nothing else. Add literals with .With.
func Inherit(names ...string) SanitizedEnvPolicy {
	return SanitizedEnvPolicy{Inherit: names}
}

// With returns the policy with these literal values set (over any it already had).
func (p SanitizedEnvPolicy) With(values map[string]string) SanitizedEnvPolicy {
	set := EnvSet{}
	for k, v := range p.Set {
		set[k] = v
	}
	for k, v := range Set(values) {
		set[k] = v
	}
	p.Set = set
	return p
}

// Set turns plain strings into an EnvPolicy's set of literal values, so a literal needs no
// EnvValueString wrapper: SanitizedEnvPolicy{Inherit: ..., Set: a4aa.Set(map[string]string{...})}.
func Set(values map[string]string) EnvSet {
	out := make(EnvSet, len(values))
	for k, v := range values {
		out[k] = EnvValueString(v)
	}
	return out
}
