"""Billing service settings. FAKE credentials generated for ctxd's secret-scan tests."""
import os

import boto3

AWS_ACCESS_KEY_ID = "AKIAITKFPJVWGZLY6WWE"
AWS_SECRET_ACCESS_KEY = "TDflvh8asrTVSJnSdhaYml/2jkW3X9Yuyoea+SF8"
STRIPE_API_KEY = "sk_live_0Y2tE2vCbsTS9RUwfh545M77akElMxahHE9UR6isydHcKEkT"
STRIPE_RESTRICTED_KEY = "rk_live_xlXT9REUx0GSOvp0eLRXiQMZTczy5UwkDmBQg5FppMsmp4UW"
DATABASE_URL = "postgresql://billing:SmkffG4MpAa0Km7QEM@db.internal:5432/billing"
SENDGRID_API_KEY = "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"
OPENAI_API_KEY = "sk-proj-TRt0bbkkxa_h6ZM38vpfU9Tu7jclyUtBQVdpIJiEtZLQZT-CT3BlbkFJPoDVi0AH5xqOoB2dtHLmwo2AtFTA4a56xRqOK2l0F-imfqem"

# Not secrets: a commit, a request id and the docs' own example key.
RELEASE_COMMIT = "4015b57a143aec5156fd1444a017a32137a3fd0f"
DEFAULT_REQUEST_ID = "5d043463-d50b-b370-54bf-f7ff19e4c7be"
DOCS_EXAMPLE_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
PLACEHOLDER = "YOUR_API_KEY_HERE"


def s3_client():
    """An S3 client for invoice uploads, with keys passed positionally."""
    return boto3.client(
        "s3",
        "AKIAJTVUI2J42XYE5RDU",
        "4zEbnsBU8ihgNPcIcgCgAKKjfRkVF+j+VULvbalC",
        region_name="eu-west-1",
    )


def charge(customer_id, cents):
    """Charge a customer through Stripe."""
    return {"customer": customer_id, "amount": cents}
