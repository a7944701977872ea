/**
 * A private certificate for 127.0.0.1 / ::1 / localhost, valid 2000–2100, for HTTPS tests only.
 * Clients trust it by passing `testCa` as their CA; nothing outside the tests uses it.
 * Made with: openssl ecparam -name prime256v1 … ; openssl ca -selfsign -startdate 20000101000000Z -enddate 21000101000000Z
 */
export const testKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgQDQxpVqavatA2Yg8
blwCKpDHaeaEdG5qH0MuIfBpOl+hRANCAATS++coCHVIuEFBm3KnlHvIP6tShz4K
YScWlb2M8O+Ovq9zCmFXIjnRHLqrIpbE6czVTn0lCO6ustJpfF1CyM3w
-----END PRIVATE KEY-----
`;

export const testCert = `-----BEGIN CERTIFICATE-----
MIIBhTCCASygAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAlsb2NhbGhv
c3QwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMM
CWxvY2FsaG9zdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABNL75ygIdUi4QUGb
cqeUe8g/q1KHPgphJxaVvYzw746+r3MKYVciOdEcuqsilsTpzNVOfSUI7q6y0ml8
XULIzfCjbTBrMCwGA1UdEQQlMCOCCWxvY2FsaG9zdIcEfwAAAYcQAAAAAAAAAAAA
AAAAAAAAATAPBgNVHRMBAf8EBTADAQH/MAsGA1UdDwQEAwIChDAdBgNVHQ4EFgQU
8roCxW73bd7b9fm0BdAyLcHf+5EwCgYIKoZIzj0EAwIDRwAwRAIgE2XnpUXKwsXb
kfj3iNXZjc0vSD+viqHFGSZoop5p4IECIGbnmEixWWYDovt/PhLSaf0S6dWkP4ey
wa5c+Zd7Mmxb
-----END CERTIFICATE-----
`;

/** The CA a client passes to trust the test server. */
export const testCa = testCert;
