/**
 * A private certificate authority and a server certificate it issued, valid 2000–2100, for HTTPS tests
 * only: the server certificate names localhost, 127.0.0.1, ::1, releases.example.test and
 * mirror.example.test (the names the test proxy maps to loopback). Nothing outside the tests trusts
 * the CA: a client that is not given `testCa` (as a CA option, `SSL_CERT_FILE` or `SSL_CERT_DIR`)
 * refuses the server, as a validator's node would refuse a release host behind a company's
 * TLS-inspecting proxy until its CA is installed.
 * Made with openssl: `ecparam -name prime256v1`, `ca -selfsign` (CA:TRUE, keyCertSign), then `ca`
 * for the server (serverAuth, the names above as subjectAltName).
 */
export const testKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgb4pgC0PFQjVdQvmX
PAY6K7G8J8VIhn9B473vC5d0TByhRANCAATC2yALtBCy+YGWCKaD6s7rFlzSyMt5
EidC7pgZLAuXgsG2/Cq3PEXssZeTwciE+lusttRBCROWVKT0Cj0k2mBd
-----END PRIVATE KEY-----
`;

/** The server certificate (issued by the test CA). */
export const testCert = `-----BEGIN CERTIFICATE-----
MIIB8zCCAZmgAwIBAgIBAjAKBggqhkjOPQQDAjAdMRswGQYDVQQDDBJjaGFpbnZp
c29yIHRlc3QgQ0EwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAwMDBaMBQx
EjAQBgNVBAMMCWxvY2FsaG9zdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABMLb
IAu0ELL5gZYIpoPqzusWXNLIy3kSJ0LumBksC5eCwbb8Krc8Reyxl5PByIT6W6y2
1EEJE5ZUpPQKPSTaYF2jgdAwgc0wDAYDVR0TAQH/BAIwADAOBgNVHQ8BAf8EBAMC
B4AwEwYDVR0lBAwwCgYIKwYBBQUHAwEwWAYDVR0RBFEwT4IJbG9jYWxob3N0ghVy
ZWxlYXNlcy5leGFtcGxlLnRlc3SCE21pcnJvci5leGFtcGxlLnRlc3SHBH8AAAGH
EAAAAAAAAAAAAAAAAAAAAAEwHQYDVR0OBBYEFBj2XmOCiKTYmtBKrDX9xCJn/Gbj
MB8GA1UdIwQYMBaAFD3nkG+JT+QPeIcOSuPhJ8loMdhTMAoGCCqGSM49BAMCA0gA
MEUCIFK6kTECyTX0dkpIHNoll3Sw7E9+nFJaj+IJtsk2j7gUAiEA0hoCkwciTfn2
KpW1hqL+wQavtKjqetvOoZ8U0qDUqjo=
-----END CERTIFICATE-----
`;

/** The test CA's certificate: what a client trusts to accept the test servers. */
export const testCa = `-----BEGIN CERTIFICATE-----
MIIBbjCCAROgAwIBAgIBATAKBggqhkjOPQQDAjAdMRswGQYDVQQDDBJjaGFpbnZp
c29yIHRlc3QgQ0EwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAwMDBaMB0x
GzAZBgNVBAMMEmNoYWludmlzb3IgdGVzdCBDQTBZMBMGByqGSM49AgEGCCqGSM49
AwEHA0IABGbHelbgLN3VsdwAu+DQ9+NXmpxvDq2sg+qjBNtiz8BG5jdaJqMCGfx2
U+LkobNVH++U6qNtU4bImLyl6kwkg2+jQjBAMA8GA1UdEwEB/wQFMAMBAf8wDgYD
VR0PAQH/BAQDAgEGMB0GA1UdDgQWBBQ955BviU/kD3iHDkrj4SfJaDHYUzAKBggq
hkjOPQQDAgNJADBGAiEAmYAGp1xabUtp0n8q5ISjLlFP53k5XlXWi4fJlJCUw/AC
IQDIeeyDlxOIHDCN3E7bkHuJYL6JshdKCbzsMDbPrm+e9A==
-----END CERTIFICATE-----
`;
