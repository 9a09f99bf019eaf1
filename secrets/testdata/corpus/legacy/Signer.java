package com.example.legacy;

/** Signs legacy webhooks. The key is FAKE, generated for ctxd's tests. */
public final class Signer {
    private static final String KEY = """
-----BEGIN RSA PRIVATE KEY-----
nORXpMnuvxogd4kS1V2rchG2HFFGPS7eK2aowGJx4HHdI8G//beQatLFy0tz5h9P
6YXFmXVuJFMcuIexTtxR0aKbqaBh/w/Owtza/CJjlKEq0xg1wiZNBziVqBRKPeNV
TxMAYrFM4ULvKSNWKhJQ1dx42Zz+dfI34LKfhEcDe+SXXYV9hXEQWJX3ZoeZNYY8
B/SNd6/DusNSjl42o6AuQYJdrDzXv4hjwNJlrojXVRsi11NrW8vgDVgQcKooy9J5
VVs1Bm2mSK3Nu5q3wG8Gd4n2mv6NYZp2vwmPStP2rQHZ13wsl8bpn9wTJ4o+zz+R
/BdtKV95w7fQ6mLC85/50flJohcwq7EbbopDPaJo7gDK7e70XTry3m1DIfLGbt+W
waqgi9TXo/9C2qDn
-----END RSA PRIVATE KEY-----
""";

    public static boolean verify(byte[] body, String sig) {
        return body.length > 0 && !sig.isEmpty() && !KEY.isEmpty();
    }
}
