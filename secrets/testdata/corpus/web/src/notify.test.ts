import { describe, expect, it } from "vitest";
import { parseSession } from "./session";

// FAKE tokens generated for ctxd's secret-scan tests.
// A token minted for a fake user: its claims say so.
const FAKE_USER_JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZXN0LXVzZXItMSIsIm5hbWUiOiJKYW5lIERvZSIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwfQ.qeKhN9gw9JLoRvgfow17TlUFYddxhL2YeunkYdwev-4";
// A service token pasted into a test: its claims are a real service's.
const REFUND_JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtcTdyazJtIiwiaWF0IjoxNzY0MDAwMDAwLCJzY29wZSI6InBheW1lbnRzOnJlZnVuZCJ9.dvwS2m4vEIClcg2MU4WtPHciXT6J1bMoor4qZ8ntK70";

describe("parseSession", () => {
  it("reads the subject", () => {
    expect(parseSession(FAKE_USER_JWT).sub).toBe("test-user-1");
  });
  it("reads the scope", () => {
    expect(parseSession(REFUND_JWT).scope).toBe("payments:refund");
  });
});
