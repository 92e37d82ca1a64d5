//! The standard security handler with an empty user password (RC4, AES-128, AES-256).

use aes::cipher::{generic_array::GenericArray, BlockDecrypt, BlockEncrypt, KeyInit};
use md5::{Digest, Md5};
use sha2::{Sha256, Sha384, Sha512};

use crate::objects::{Dict, Obj};

/// The password padding string of ISO 32000-1, 7.6.3.3.
const PAD: [u8; 32] = [
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
    0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
];

/// How strings or streams are encrypted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    /// Not encrypted (`/Identity`).
    Identity,
    /// RC4 with a per-object key.
    Rc4,
    /// AES-128-CBC with a per-object key.
    Aes128,
    /// AES-256-CBC with the file key.
    Aes256,
}

/// Decrypts the strings and streams of a file encrypted with an empty user password.
#[derive(Clone, Debug)]
pub struct Decryptor {
    key: Vec<u8>,
    strings: Method,
    streams: Method,
    /// Whether metadata streams are encrypted.
    pub encrypt_metadata: bool,
}

/// RC4 encryption and decryption (the same operation).
pub fn rc4(key: &[u8], data: &[u8]) -> Vec<u8> {
    if key.is_empty() {
        return data.to_vec();
    }
    let mut s: [u8; 256] = std::array::from_fn(|i| i as u8);
    let mut j = 0u8;
    for i in 0..256 {
        j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len()]);
        s.swap(i, usize::from(j));
    }
    let (mut i, mut j) = (0u8, 0u8);
    data.iter()
        .map(|&b| {
            i = i.wrapping_add(1);
            j = j.wrapping_add(s[usize::from(i)]);
            s.swap(usize::from(i), usize::from(j));
            b ^ s[usize::from(s[usize::from(i)].wrapping_add(s[usize::from(j)]))]
        })
        .collect()
}

/// AES-CBC decryption (128- or 256-bit key); `padded` strips PKCS#5 padding (leniently).
fn aes_cbc_decrypt(key: &[u8], iv: &[u8], data: &[u8], padded: bool) -> Vec<u8> {
    let mut prev: [u8; 16] = iv.try_into().unwrap_or([0; 16]);
    let mut out = Vec::with_capacity(data.len());
    let mut block = |chunk: &[u8], dec: &dyn Fn(&mut [u8; 16])| {
        let Ok(c) = <[u8; 16]>::try_from(chunk) else {
            return;
        };
        let mut b = c;
        dec(&mut b);
        out.extend(b.iter().zip(prev).map(|(x, p)| x ^ p));
        prev = c;
    };
    match key.len() {
        16 => {
            let cipher = aes::Aes128::new(GenericArray::from_slice(key));
            for chunk in data.chunks_exact(16) {
                block(chunk, &|b| {
                    cipher.decrypt_block(GenericArray::from_mut_slice(b))
                });
            }
        }
        32 => {
            let cipher = aes::Aes256::new(GenericArray::from_slice(key));
            for chunk in data.chunks_exact(16) {
                block(chunk, &|b| {
                    cipher.decrypt_block(GenericArray::from_mut_slice(b))
                });
            }
        }
        _ => return Vec::new(),
    }
    if padded {
        if let Some(&n) = out.last() {
            if (1..=16).contains(&n) && usize::from(n) <= out.len() {
                out.truncate(out.len() - usize::from(n));
            }
        }
    }
    out
}

/// AES-128-CBC encryption without padding (for algorithm 2.B).
fn aes128_cbc_encrypt(key: &[u8], iv: &[u8], data: &mut [u8]) {
    let cipher = aes::Aes128::new(GenericArray::from_slice(key));
    let mut prev: [u8; 16] = iv.try_into().unwrap_or([0; 16]);
    for chunk in data.chunks_exact_mut(16) {
        for (c, p) in chunk.iter_mut().zip(prev) {
            *c ^= p;
        }
        cipher.encrypt_block(GenericArray::from_mut_slice(chunk));
        prev.copy_from_slice(chunk);
    }
}

/// Algorithm 2.B (ISO 32000-2): the R6 hash of the (empty) password with a salt.
fn hash_r6(salt: &[u8], udata: &[u8]) -> [u8; 32] {
    let mut k: Vec<u8> = Sha256::digest(salt).to_vec();
    let mut round = 0u32;
    loop {
        let mut k1 = Vec::with_capacity(64 * (k.len() + udata.len()));
        for _ in 0..64 {
            k1.extend_from_slice(&k);
            k1.extend_from_slice(udata);
        }
        let (Some(key), Some(iv)) = (k.get(..16), k.get(16..32)) else {
            break;
        };
        aes128_cbc_encrypt(key, iv, &mut k1);
        let sum: u32 = k1.iter().take(16).map(|&b| u32::from(b)).sum();
        k = match sum % 3 {
            0 => Sha256::digest(&k1).to_vec(),
            1 => Sha384::digest(&k1).to_vec(),
            _ => Sha512::digest(&k1).to_vec(),
        };
        round += 1;
        let last = u32::from(k1.last().copied().unwrap_or(0));
        if round >= 64 && last + 32 <= round || round > 1000 {
            break;
        }
    }
    let mut out = [0u8; 32];
    out.copy_from_slice(k.get(..32).unwrap_or(&[0; 32]));
    out
}

fn bytes(d: &Dict, key: &[u8]) -> Vec<u8> {
    d.get(key)
        .and_then(Obj::as_str)
        .map(<[u8]>::to_vec)
        .unwrap_or_default()
}

/// The method of a crypt filter named `name` in `/CF` (V4 and V5).
fn filter_method(encrypt: &Dict, name: Option<&[u8]>) -> Result<Method, String> {
    let name = name.unwrap_or(b"Identity");
    if name == b"Identity" {
        return Ok(Method::Identity);
    }
    let cfm = encrypt
        .get(b"CF")
        .and_then(Obj::as_dict)
        .and_then(|cf| cf.get(name))
        .and_then(Obj::as_dict)
        .and_then(|f| f.name(b"CFM"))
        .unwrap_or(b"None");
    match cfm {
        b"V2" => Ok(Method::Rc4),
        b"AESV2" => Ok(Method::Aes128),
        b"AESV3" => Ok(Method::Aes256),
        b"None" => Ok(Method::Identity),
        other => Err(format!(
            "encrypted PDF with an unsupported crypt filter ({})",
            String::from_utf8_lossy(other)
        )),
    }
}

impl Decryptor {
    /// Sets up decryption from the `/Encrypt` dictionary and the first `/ID` string; fails with a
    /// clear message when the handler is not supported or a user password is needed.
    pub fn new(encrypt: &Dict, id0: &[u8]) -> Result<Decryptor, String> {
        if encrypt.name(b"Filter") != Some(b"Standard") {
            return Err("encrypted PDF with an unsupported security handler".into());
        }
        let int = |k: &[u8]| encrypt.get(k).and_then(Obj::as_i64);
        let v = int(b"V").unwrap_or(0);
        let r = int(b"R").unwrap_or(0);
        let encrypt_metadata = !matches!(encrypt.get(b"EncryptMetadata"), Some(Obj::Bool(false)));
        let (strings, streams) = match v {
            1 | 2 => (Method::Rc4, Method::Rc4),
            4 | 5 => (
                filter_method(encrypt, encrypt.name(b"StrF"))?,
                filter_method(encrypt, encrypt.name(b"StmF"))?,
            ),
            _ => return Err(format!("encrypted PDF with unsupported encryption (V {v})")),
        };
        let o = bytes(encrypt, b"O");
        let u = bytes(encrypt, b"U");
        let key = match r {
            2..=4 => {
                let bits = match r {
                    2 => 40,
                    4 => int(b"Length").unwrap_or(128),
                    _ => int(b"Length").unwrap_or(40),
                };
                let n = usize::try_from(bits / 8).unwrap_or(5).clamp(5, 16);
                let p = int(b"P").unwrap_or(0) as i32;
                let mut h = Md5::new();
                h.update(PAD);
                h.update(o.get(..32).unwrap_or(&o));
                h.update(p.to_le_bytes());
                h.update(id0);
                if r >= 4 && !encrypt_metadata {
                    h.update([0xFF; 4]);
                }
                let mut key = h.finalize().to_vec();
                if r >= 3 {
                    for _ in 0..50 {
                        key = Md5::digest(&key[..n]).to_vec();
                    }
                }
                key.truncate(n);
                let ok = if r == 2 {
                    rc4(&key, &PAD) == u.get(..32).unwrap_or(&u)
                } else {
                    let mut x = {
                        let mut h = Md5::new();
                        h.update(PAD);
                        h.update(id0);
                        h.finalize().to_vec()
                    };
                    for i in 0..20u8 {
                        let k: Vec<u8> = key.iter().map(|b| b ^ i).collect();
                        x = rc4(&k, &x);
                    }
                    u.get(..16) == Some(&x[..])
                };
                if !ok {
                    return Err("encrypted PDF needs a password".into());
                }
                key
            }
            5 | 6 => {
                let (Some(hash), Some(vsalt), Some(ksalt)) =
                    (u.get(..32), u.get(32..40), u.get(40..48))
                else {
                    return Err("damaged PDF: bad /U in the encryption dictionary".into());
                };
                let h = |salt: &[u8]| -> [u8; 32] {
                    if r == 5 {
                        Sha256::digest(salt).into()
                    } else {
                        hash_r6(salt, &[])
                    }
                };
                if h(vsalt) != hash {
                    return Err("encrypted PDF needs a password".into());
                }
                let ue = bytes(encrypt, b"UE");
                let Some(ue) = ue.get(..32) else {
                    return Err("damaged PDF: bad /UE in the encryption dictionary".into());
                };
                aes_cbc_decrypt(&h(ksalt), &[0; 16], ue, false)
            }
            _ => return Err(format!("encrypted PDF with unsupported encryption (R {r})")),
        };
        Ok(Decryptor {
            key,
            strings,
            streams,
            encrypt_metadata,
        })
    }

    fn apply(&self, method: Method, num: u32, gen: u16, data: &[u8]) -> Vec<u8> {
        let object_key = |aes: bool| {
            let mut h = Md5::new();
            h.update(&self.key);
            h.update(&num.to_le_bytes()[..3]);
            h.update(gen.to_le_bytes());
            if aes {
                h.update(b"sAlT");
            }
            let mut k = h.finalize().to_vec();
            k.truncate((self.key.len() + 5).min(16));
            k
        };
        match method {
            Method::Identity => data.to_vec(),
            Method::Rc4 => rc4(&object_key(false), data),
            Method::Aes128 | Method::Aes256 => {
                let (Some(iv), Some(body)) = (data.get(..16), data.get(16..)) else {
                    return Vec::new();
                };
                let key = if method == Method::Aes128 {
                    object_key(true)
                } else {
                    self.key.clone()
                };
                aes_cbc_decrypt(&key, iv, body, true)
            }
        }
    }

    /// Decrypts a string of object `num` generation `gen`.
    pub fn string(&self, num: u32, gen: u16, data: &[u8]) -> Vec<u8> {
        self.apply(self.strings, num, gen, data)
    }

    /// Decrypts the data of a stream of object `num` generation `gen` (a stream whose own
    /// `/Filter` starts with `/Crypt` names its crypt filter; only `/Identity` is honoured).
    pub fn stream(&self, num: u32, gen: u16, dict: &Dict, data: &[u8]) -> Vec<u8> {
        let first_filter = match dict.get(b"Filter") {
            Some(Obj::Name(n)) => Some(n.as_slice()),
            Some(Obj::Array(a)) => a.first().and_then(Obj::as_name),
            _ => None,
        };
        if first_filter == Some(b"Crypt") {
            let name = match dict.get(b"DecodeParms") {
                Some(Obj::Dict(p)) => p.name(b"Name").map(<[u8]>::to_vec),
                Some(Obj::Array(a)) => a
                    .first()
                    .and_then(Obj::as_dict)
                    .and_then(|p| p.name(b"Name"))
                    .map(<[u8]>::to_vec),
                _ => None,
            };
            if name.as_deref().is_none_or(|n| n == b"Identity") {
                return data.to_vec();
            }
        }
        if !self.encrypt_metadata && dict.is_type(b"Metadata") {
            return data.to_vec();
        }
        self.apply(self.streams, num, gen, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rc4_known_answer() {
        // RFC 6229-style classic vector: key "Key", plaintext "Plaintext".
        assert_eq!(
            rc4(b"Key", b"Plaintext"),
            [0xBB, 0xF3, 0x16, 0xE8, 0xD9, 0x40, 0xAF, 0x0A, 0xD3]
        );
    }

    #[test]
    fn aes_cbc_round_trip_and_bad_input() {
        let key = [7u8; 16];
        let iv = [9u8; 16];
        let mut data =
            *b"sixteen byte msg\x10\x10\x10\x10\x10\x10\x10\x10\x10\x10\x10\x10\x10\x10\x10\x10";
        aes128_cbc_encrypt(&key, &iv, &mut data);
        assert_eq!(aes_cbc_decrypt(&key, &iv, &data, true), b"sixteen byte msg");
        assert!(aes_cbc_decrypt(&key, &iv, &data[..5], true).is_empty());
        assert!(aes_cbc_decrypt(&[1, 2], &iv, &data, true).is_empty());
    }
}
