// gemini --acp traced (see ../helpers/acp-otel.ts).
import { acpOtelSuite } from "../helpers/acp-otel.js";

acpOtelSuite("gemini-acp", "gcp.gemini");
