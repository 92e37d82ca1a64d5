//! SCRAM-SHA-256 as PostgreSQL stores and checks it: StoredKey/ServerKey verifiers and the
//! server side of the exchange (RFC 5802, RFC 7677), with `tls-server-end-point` channel binding.
//!
//! The server never holds anything a client could log in with: a proof is checked by
//! recovering ClientKey from it and comparing `H(ClientKey)` with StoredKey, as PostgreSQL's
//! `scram_verify_client_proof` does.

use std::borrow::Cow;
use std::num::NonZeroU32;

use aws_lc_rs::{constant_time, digest, hmac, pbkdf2};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// The mechanism without channel binding.
pub const SCRAM_SHA_256: &str = "SCRAM-SHA-256";
/// The mechanism with channel binding (offered on TLS connections).
pub const SCRAM_SHA_256_PLUS: &str = "SCRAM-SHA-256-PLUS";
/// Iterations of new verifiers (PostgreSQL's default `scram_iterations`).
pub const SCRAM_ITERATIONS: u32 = 4096;
const PREFIX: &str = "SCRAM-SHA-256$";
const SALT_BYTES: usize = 16;
const KEY_BYTES: usize = 32;
const BINDING: &str = "tls-server-end-point";

/// Why an exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScramError {
    /// The client's proof does not match the verifier (wrong password or unknown user).
    #[error("password authentication failed")]
    InvalidProof,
    /// A malformed message or a rule of the protocol broken (SQLSTATE 08P01).
    #[error("malformed SCRAM message: {0}")]
    Protocol(String),
}

fn protocol(m: impl Into<String>) -> ScramError {
    ScramError::Protocol(m.into())
}

/// A stored SCRAM-SHA-256 verifier: `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`
/// (base64), the format of PostgreSQL's `pg_authid.rolpassword`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verifier {
    /// Iteration count of `Hi()`.
    pub iterations: u32,
    /// Salt.
    pub salt: Vec<u8>,
    /// `H(HMAC(SaltedPassword, "Client Key"))`.
    pub stored_key: [u8; KEY_BYTES],
    /// `HMAC(SaltedPassword, "Server Key")`.
    pub server_key: [u8; KEY_BYTES],
}

fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; KEY_BYTES] {
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), msg);
    let mut out = [0u8; KEY_BYTES];
    out.copy_from_slice(tag.as_ref());
    out
}

fn sha256(msg: &[u8]) -> [u8; KEY_BYTES] {
    let d = digest::digest(&digest::SHA256, msg);
    let mut out = [0u8; KEY_BYTES];
    out.copy_from_slice(d.as_ref());
    out
}

fn key32(b64: &str, what: &str) -> Result<[u8; KEY_BYTES], String> {
    let bytes = STANDARD
        .decode(b64)
        .map_err(|_| format!("{what} is not base64"))?;
    bytes
        .try_into()
        .map_err(|_| format!("{what} is not {KEY_BYTES} bytes"))
}

impl Verifier {
    /// A new verifier for `password` with a fresh random salt.
    pub fn new(password: &str) -> Self {
        let salt: [u8; SALT_BYTES] = rand::random();
        Self::with_salt(password, &salt, SCRAM_ITERATIONS)
    }

    /// The verifier of `password` with a given salt (SASLprep as PostgreSQL: a password that
    /// is not valid for SASLprep is used as it is).
    pub fn with_salt(password: &str, salt: &[u8], iterations: u32) -> Self {
        let prepared = stringprep::saslprep(password).unwrap_or(Cow::Borrowed(password));
        let mut salted = [0u8; KEY_BYTES];
        pbkdf2::derive(
            pbkdf2::PBKDF2_HMAC_SHA256,
            NonZeroU32::new(iterations.max(1)).expect("at least one iteration"),
            salt,
            prepared.as_bytes(),
            &mut salted,
        );
        Self::from_salted_password(salt, iterations, &salted)
    }

    /// The verifier of a SaltedPassword (how files of Mitra before StoredKeys are converted).
    pub fn from_salted_password(salt: &[u8], iterations: u32, salted: &[u8]) -> Self {
        Self {
            iterations,
            salt: salt.to_vec(),
            stored_key: sha256(&hmac_sha256(salted, b"Client Key")),
            server_key: hmac_sha256(salted, b"Server Key"),
        }
    }

    /// A verifier no password matches, stable per name: offered for unknown users so that a
    /// login attempt cannot tell a missing user from a wrong password.
    pub fn decoy(name: &str, secret: &[u8]) -> Self {
        let digest = |tag: &[u8]| {
            let mut m = tag.to_vec();
            m.extend_from_slice(name.as_bytes());
            hmac_sha256(secret, &m)
        };
        Self {
            iterations: SCRAM_ITERATIONS,
            salt: digest(b"salt")[..SALT_BYTES].to_vec(),
            stored_key: digest(b"stored"),
            server_key: digest(b"server"),
        }
    }

    /// The stored form.
    pub fn encode(&self) -> String {
        format!(
            "{PREFIX}{}:{}${}:{}",
            self.iterations,
            STANDARD.encode(&self.salt),
            STANDARD.encode(self.stored_key),
            STANDARD.encode(self.server_key)
        )
    }

    /// Parses the stored form. Mitra's files before StoredKeys held
    /// `SCRAM-SHA-256$<iterations>:<salt>$<SaltedPassword>`: such a verifier is converted and
    /// reported as `legacy` (the file should be rewritten: it could be replayed).
    pub fn parse(s: &str) -> Result<(Self, bool), String> {
        let rest = s
            .strip_prefix(PREFIX)
            .ok_or("verifier does not start with SCRAM-SHA-256$")?;
        let (params, keys) = rest.split_once('$').ok_or("verifier lacks its keys")?;
        let (iters, salt) = params.split_once(':').ok_or("verifier lacks its salt")?;
        let iterations: u32 = iters
            .parse()
            .ok()
            .filter(|&i| i > 0)
            .ok_or("bad iteration count")?;
        let salt = STANDARD.decode(salt).map_err(|_| "salt is not base64")?;
        if salt.is_empty() {
            return Err("verifier has an empty salt".into());
        }
        match keys.split_once(':') {
            Some((stored, server)) => Ok((
                Self {
                    iterations,
                    salt,
                    stored_key: key32(stored, "StoredKey")?,
                    server_key: key32(server, "ServerKey")?,
                },
                false,
            )),
            None => {
                let salted = key32(keys, "SaltedPassword")?;
                Ok((Self::from_salted_password(&salt, iterations, &salted), true))
            }
        }
    }
}

/// The `tls-server-end-point` binding data of a TLS connection: the hash of the server's
/// certificate (RFC 5929). `None` on a plaintext connection.
pub type EndPoint<'a> = Option<&'a [u8]>;

/// The mechanisms offered on a connection, in PostgreSQL's order.
pub fn mechanisms(end_point: EndPoint<'_>) -> Vec<String> {
    let mut m = Vec::new();
    if end_point.is_some() {
        m.push(SCRAM_SHA_256_PLUS.to_string());
    }
    m.push(SCRAM_SHA_256.to_string());
    m
}

/// The exchange after the server-first-message, waiting for the client-final-message.
#[derive(Debug)]
pub struct Exchange {
    verifier: Verifier,
    /// The gs2 header as the client sent it (echoed base64 in `c=`).
    gs2_header: String,
    /// The binding data the client must prove (the certificate hash for `p=`).
    binding_data: Vec<u8>,
    nonce: String,
    client_first_bare: String,
    server_first: String,
}

fn printable(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b) && b != b',')
}

/// Starts an exchange: checks the client-first-message against the chosen mechanism and the
/// connection's channel binding, and answers with the server-first-message.
/// `server_nonce` is fresh random printable text (a parameter for the RFC's test vector).
pub fn server_first(
    mechanism: &str,
    client_first: &[u8],
    verifier: Verifier,
    end_point: EndPoint<'_>,
    server_nonce: &str,
) -> Result<(String, Exchange), ScramError> {
    let text =
        std::str::from_utf8(client_first).map_err(|_| protocol("client-first is not UTF-8"))?;
    let (flag, rest) = text
        .split_once(',')
        .ok_or_else(|| protocol("client-first lacks its gs2 header"))?;
    let (authzid, bare) = rest
        .split_once(',')
        .ok_or_else(|| protocol("client-first lacks its gs2 header"))?;
    if !authzid.is_empty() {
        return Err(protocol(
            "client uses an authorization identity, which is not supported",
        ));
    }
    let plus = mechanism == SCRAM_SHA_256_PLUS;
    if !plus && mechanism != SCRAM_SHA_256 {
        return Err(protocol(format!("unsupported mechanism {mechanism:?}")));
    }
    let binding_data = match flag {
        "n" if !plus => Vec::new(),
        // The client could bind but thinks the server cannot: on TLS that is a downgrade.
        "y" if !plus && end_point.is_none() => Vec::new(),
        "y" if !plus => {
            return Err(protocol(
                "SCRAM channel binding negotiation error: the client supports channel binding \
                 but chose SCRAM-SHA-256 although the server offered SCRAM-SHA-256-PLUS",
            ))
        }
        f if f.starts_with("p=") => {
            let name = &f[2..];
            if !plus {
                return Err(protocol(
                    "channel binding requested with a mechanism without channel binding",
                ));
            }
            if name != BINDING {
                return Err(protocol(format!(
                    "unsupported channel binding type {name:?}"
                )));
            }
            end_point
                .ok_or_else(|| protocol("channel binding is only offered on TLS connections"))?
                .to_vec()
        }
        _ => {
            return Err(protocol(format!(
                "unexpected channel binding flag {flag:?} for {mechanism}"
            )))
        }
    };
    let mut attrs = bare.split(',');
    let user = attrs.next().unwrap_or_default();
    if user.starts_with("m=") {
        return Err(protocol("mandatory extensions are not supported"));
    }
    // PostgreSQL takes the user from the startup packet and ignores this one.
    if !user.starts_with("n=") {
        return Err(protocol("client-first lacks its user name attribute"));
    }
    let client_nonce = attrs
        .next()
        .and_then(|a| a.strip_prefix("r="))
        .filter(|n| printable(n))
        .ok_or_else(|| protocol("client-first lacks a valid nonce"))?;
    let nonce = format!("{client_nonce}{server_nonce}");
    let server_first = format!(
        "r={nonce},s={},i={}",
        STANDARD.encode(&verifier.salt),
        verifier.iterations
    );
    Ok((
        server_first.clone(),
        Exchange {
            verifier,
            gs2_header: format!("{flag},,"),
            binding_data,
            nonce,
            client_first_bare: bare.to_string(),
            server_first,
        },
    ))
}

/// Fresh random printable text for the server's part of the nonce.
pub fn random_nonce() -> String {
    STANDARD.encode(rand::random::<[u8; 18]>())
}

impl Exchange {
    /// Checks the client-final-message; the server-final-message (`v=<ServerSignature>`) when
    /// the proof matches.
    pub fn finish(&self, client_final: &[u8]) -> Result<String, ScramError> {
        let text =
            std::str::from_utf8(client_final).map_err(|_| protocol("client-final is not UTF-8"))?;
        let (without_proof, proof) = text
            .rsplit_once(",p=")
            .ok_or_else(|| protocol("client-final lacks its proof"))?;
        let mut attrs = without_proof.split(',');
        let binding = attrs
            .next()
            .and_then(|a| a.strip_prefix("c="))
            .ok_or_else(|| protocol("client-final lacks its channel binding"))?;
        let mut expected = self.gs2_header.as_bytes().to_vec();
        expected.extend_from_slice(&self.binding_data);
        let given = STANDARD
            .decode(binding)
            .map_err(|_| protocol("channel binding is not base64"))?;
        if given != expected {
            return Err(protocol(
                "SCRAM channel binding check failed (the TLS connection is not the one the \
                 client bound to)",
            ));
        }
        let nonce = attrs
            .next()
            .and_then(|a| a.strip_prefix("r="))
            .ok_or_else(|| protocol("client-final lacks its nonce"))?;
        if nonce != self.nonce {
            return Err(protocol("nonce does not match"));
        }
        let proof = STANDARD
            .decode(proof)
            .ok()
            .filter(|p| p.len() == KEY_BYTES)
            .ok_or_else(|| protocol("malformed proof"))?;
        let auth_message = format!(
            "{},{},{}",
            self.client_first_bare, self.server_first, without_proof
        );
        let signature = hmac_sha256(&self.verifier.stored_key, auth_message.as_bytes());
        let client_key: Vec<u8> = proof.iter().zip(signature).map(|(p, s)| p ^ s).collect();
        constant_time::verify_slices_are_equal(&sha256(&client_key), &self.verifier.stored_key)
            .map_err(|_| ScramError::InvalidProof)?;
        let server_signature = hmac_sha256(&self.verifier.server_key, auth_message.as_bytes());
        Ok(format!("v={}", STANDARD.encode(server_signature)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The client side, for the tests only.
    fn client_final(
        password: &str,
        gs2: &str,
        binding: &[u8],
        client_first_bare: &str,
        server_first: &str,
    ) -> String {
        let nonce = server_first.split(',').next().unwrap();
        let salt = server_first.split(",s=").nth(1).unwrap();
        let salt = STANDARD.decode(salt.split(',').next().unwrap()).unwrap();
        let iters: u32 = server_first.rsplit(",i=").next().unwrap().parse().unwrap();
        let v = Verifier::with_salt(password, &salt, iters);
        let mut c = gs2.as_bytes().to_vec();
        c.extend_from_slice(binding);
        let without = format!("c={},{nonce}", STANDARD.encode(c));
        let auth = format!("{client_first_bare},{server_first},{without}");
        // ClientKey from the password; proof = ClientKey xor HMAC(StoredKey, AuthMessage).
        let prep = stringprep::saslprep(password).unwrap();
        let mut salted = [0u8; 32];
        pbkdf2::derive(
            pbkdf2::PBKDF2_HMAC_SHA256,
            NonZeroU32::new(iters).unwrap(),
            &salt,
            prep.as_bytes(),
            &mut salted,
        );
        let client_key = hmac_sha256(&salted, b"Client Key");
        let sig = hmac_sha256(&v.stored_key, auth.as_bytes());
        let proof: Vec<u8> = client_key.iter().zip(sig).map(|(a, b)| a ^ b).collect();
        format!("{without},p={}", STANDARD.encode(proof))
    }

    /// RFC 7677's example exchange, byte for byte.
    #[test]
    fn rfc7677_test_vector() {
        let salt = STANDARD.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
        let v = Verifier::with_salt("pencil", &salt, 4096);
        let (first, ex) = server_first(
            SCRAM_SHA_256,
            b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
            v,
            None,
            "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
        )
        .unwrap();
        assert_eq!(
            first,
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
        );
        let fin = ex
            .finish(b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
            .unwrap();
        assert_eq!(fin, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
        // One bit of the proof changed.
        assert_eq!(
            ex.finish(b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVU="),
            Err(ScramError::InvalidProof)
        );
    }

    /// A verifier copied from PostgreSQL 15's `pg_authid` (password "s3cret pass") parses
    /// and accepts that password.
    #[test]
    fn postgres_verifiers_are_accepted_as_they_are() {
        let pg = "SCRAM-SHA-256$4096:S+1q3aKPxHGC20ReBHskew==$v7gCjtGMZ0TJvJG4NsKkhoAtd9+3+QIlYXiahQcZjYg=:v3LD02GMNpoHpbAGhznZbzXx4zfQnIJai1WzsZ5jd5A=";
        let (v, legacy) = Verifier::parse(pg).unwrap();
        assert!(!legacy);
        assert_eq!(v.encode(), pg);
        let again = Verifier::with_salt("s3cret pass", &v.salt, v.iterations);
        assert_eq!(again, v);
    }

    #[test]
    fn legacy_salted_passwords_are_converted() {
        let salt = b"0123456789abcdef";
        let v = Verifier::with_salt("pw", salt, 4096);
        // The SaltedPassword of "pw", as the old files stored it.
        let prep = stringprep::saslprep("pw").unwrap();
        let mut salted = [0u8; 32];
        pbkdf2::derive(
            pbkdf2::PBKDF2_HMAC_SHA256,
            NonZeroU32::new(4096).unwrap(),
            salt,
            prep.as_bytes(),
            &mut salted,
        );
        let old = format!(
            "{PREFIX}4096:{}${}",
            STANDARD.encode(salt),
            STANDARD.encode(salted)
        );
        assert_eq!(Verifier::parse(&old).unwrap(), (v, true));
    }

    #[test]
    fn channel_binding_rules() {
        let v = Verifier::new("pw");
        let cert_hash = [7u8; 32];
        let bare = "n=,r=abcdefgh";
        // PLUS on TLS with the right certificate hash: accepted.
        let (first, ex) = server_first(
            SCRAM_SHA_256_PLUS,
            format!("p=tls-server-end-point,,{bare}").as_bytes(),
            v.clone(),
            Some(&cert_hash),
            "XYZ",
        )
        .unwrap();
        let fin = client_final("pw", "p=tls-server-end-point,,", &cert_hash, bare, &first);
        assert!(ex.finish(fin.as_bytes()).unwrap().starts_with("v="));
        // Another certificate's hash (a man in the middle): refused before the proof.
        let fin = client_final("pw", "p=tls-server-end-point,,", &[8u8; 32], bare, &first);
        assert!(matches!(
            ex.finish(fin.as_bytes()),
            Err(ScramError::Protocol(_))
        ));
        // Downgrade: a client able to bind chose the plain mechanism on TLS.
        let y = format!("y,,{bare}");
        assert!(server_first(
            SCRAM_SHA_256,
            y.as_bytes(),
            v.clone(),
            Some(&cert_hash),
            "X"
        )
        .is_err());
        assert!(server_first(SCRAM_SHA_256, y.as_bytes(), v.clone(), None, "X").is_ok());
        // PLUS without TLS, binding with the plain mechanism, other binding types, authzid.
        let p = format!("p=tls-server-end-point,,{bare}");
        assert!(server_first(SCRAM_SHA_256_PLUS, p.as_bytes(), v.clone(), None, "X").is_err());
        assert!(server_first(
            SCRAM_SHA_256,
            p.as_bytes(),
            v.clone(),
            Some(&cert_hash),
            "X"
        )
        .is_err());
        let u = format!("p=tls-unique,,{bare}");
        assert!(server_first(
            SCRAM_SHA_256_PLUS,
            u.as_bytes(),
            v.clone(),
            Some(&cert_hash),
            "X"
        )
        .is_err());
        assert!(server_first(SCRAM_SHA_256, b"n,a=bob,n=,r=abc", v.clone(), None, "X").is_err());
        // Plain SCRAM works and a wrong password is InvalidProof.
        let (first, ex) = server_first(SCRAM_SHA_256, b"n,,n=,r=abcdefgh", v, None, "Q").unwrap();
        let ok = client_final("pw", "n,,", &[], bare, &first);
        assert!(ex.finish(ok.as_bytes()).is_ok());
        let bad = client_final("wrong", "n,,", &[], bare, &first);
        assert_eq!(ex.finish(bad.as_bytes()), Err(ScramError::InvalidProof));
    }

    #[test]
    fn malformed_messages_are_protocol_errors() {
        let v = Verifier::new("pw");
        for bad in [
            &b""[..],
            b"n",
            b"n,,",
            b"n,,n=u",
            b"n,,n=u,r=",
            b"n,,m=x,n=u,r=abc",
            b"x,,n=u,r=abc",
            b"\xff\xfe",
        ] {
            assert!(
                matches!(
                    server_first(SCRAM_SHA_256, bad, v.clone(), None, "S"),
                    Err(ScramError::Protocol(_))
                ),
                "{bad:?}"
            );
        }
        let (_, ex) = server_first(SCRAM_SHA_256, b"n,,n=u,r=abc", v, None, "S").unwrap();
        for bad in [
            &b""[..],
            b"c=biws,r=abcS",
            b"c=biws,r=abcT,p=AAAA",
            b"c=eSws,r=abcS,p=AAAA",
            b"c=biws,r=abcS,p=AAAA",
            b"c=biws,r=abcS,p=!!",
        ] {
            assert!(
                matches!(ex.finish(bad), Err(ScramError::Protocol(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn stored_form_round_trips_and_rejects_garbage() {
        let v = Verifier::new("x");
        assert_eq!(Verifier::parse(&v.encode()).unwrap(), (v.clone(), false));
        assert_ne!(Verifier::new("x").salt, v.salt);
        assert_eq!(Verifier::decoy("eve", b"k"), Verifier::decoy("eve", b"k"));
        assert_ne!(Verifier::decoy("eve", b"k"), Verifier::decoy("eva", b"k"));
        for bad in [
            "SCRAM-SHA-256$4096:$AAAA",
            "SCRAM-SHA-256$0:AAAA$AAAA",
            "SCRAM-SHA-256$4096:AAAA",
            "SCRAM-SHA-256$4096:AAAA$AAAA:AAAA",
            "md5abc",
        ] {
            assert!(Verifier::parse(bad).is_err(), "{bad}");
        }
    }
}
