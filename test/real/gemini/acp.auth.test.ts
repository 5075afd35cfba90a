// gemini --acp answered 401 (see ../helpers/acp-auth.ts).
import { acpAuthSuite } from "../helpers/acp-auth.js";

acpAuthSuite("gemini-acp", /GEMINI_API_KEY, GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL/);
