// The one marker that stands for a secret value wherever a4aa shows or records one: the open
// result's resolved spec, transcripts, logs.
export const REDACTED = "<redacted>";
