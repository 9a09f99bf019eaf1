// Notification clients. FAKE tokens generated for ctxd's secret-scan tests.
const SLACK_BOT_TOKEN = "xoxb-919631840370-2050917932984-jr6Kgpip3U070EWHsAhXluOY";
const SLACK_USER_TOKEN = "xoxp-885732168975-368155629068-5798570018905-7b59942ff73aa3082966a0403af15cc6";
const SLACK_WEBHOOK = "https://hooks.slack.com/services/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";
const DISCORD_BOT_TOKEN = "19sh6mA34RMLRGIrVTVZM0LS.PoPwge.jk2bBY5B-0ikpuLRUzNNexluvObpi1jeOwylSm";
const SESSION_JWT = "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAic3ZjLWJmOG50YSIsICJpYXQiOiAxNzY0MDAwMDAwLCAic2NvcGUiOiAib3JkZXJzOndyaXRlIn0.HtKlMtLFcgYrF_Wxw2zFFcvC07vb0OQ5Ev011nnjtGQ";
const TEST_TOKEN = "test-token-not-a-secret"; // an obvious test fixture
const TRACE_ID = "58a95f80-eac3-1f00-3e31-304a88faabbf";
// The token jwt.io shows, for the docs of the debug header: public, not a secret.
const EXAMPLE_JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

export function notify(channel: string, text: string): Promise<void> {
  return fetch(SLACK_WEBHOOK, { method: "POST", body: JSON.stringify({ channel, text }) }).then(() => undefined);
}
