import boto3

AWS_ACCESS_KEY_ID = "AKIA454ML6LG4TJFCZ4K"
AWS_SECRET_ACCESS_KEY = "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"
GITHUB_TOKEN = "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX"
DATABASE_URL = "postgresql://shop_admin:Vq8rT2mZ9xKp4LwNe7Hs@db.internal:5432/shop"


def upload_invoice(path):
    """Upload one invoice PDF to the archive bucket."""
    client = boto3.client("s3", region_name="eu-west-1")
    client.upload_file(path, "invoice-archive", path)
