#!/bin/sh
# Release script. FAKE credentials generated for ctxd's secret-scan tests.
set -eu
export GITHUB_TOKEN=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
export GH_FINE_GRAINED=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
export TWILIO_API_KEY=SK20a252fb9f2bba3d920db3fffb99f932
export SHOPIFY_ADMIN_TOKEN=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
export MAILGUN_API_KEY=key-fe405f124186724dd1a4cc7af74745b9
export PGPASSWORD='YnL9kYbw5romxZi9'
export PLACEHOLDER_TOKEN="<your-github-token>"
export MASK="xxxxxxxxxxxxxxxxxxxxxxxx"
curl -fsS -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/repos/example/orders/releases
