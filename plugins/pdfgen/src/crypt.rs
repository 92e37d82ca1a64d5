//! Standard security handler, encryption side: RC4-128 (V2 R3), AES-128 (V4 R4), AES-256 (V5 R6).

use std::fmt::Write as _;

use aes::cipher::{generic_array::GenericArray, BlockEncrypt, KeyInit};
use md5::{Digest, Md5};
use sha2::{Sha256, Sha384, Sha512};

/// Password padding (ISO 32000-1, 7.6.3.3).
const PAD: [u8; 32] = [
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
    0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
];

/// Permissions written to `/P`: none beyond viewing (printing, copying, changing denied).
const PERMISSIONS: i32 = -3904;

/// The file identifier written to `/ID`.
pub const FILE_ID: [u8; 16] = *b"pdfgen-file-id-1";

/// The cipher of an encrypted document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cipher {
    /// RC4 with a 128-bit key (`/V 2 /R 3`).
    Rc4_128,
    /// AES-128-CBC through the `/StdCF` crypt filter (`/V 4 /R 4 /CFM /AESV2`).
    Aes128,
    /// AES-256-CBC through `/StdCF` (`/V 5 /R 6 /CFM /AESV3`, ISO 32000-2).
    Aes256,
}

/// Encryption settings of a document.
#[derive(Clone, Debug)]
pub struct Encryption {
    /// The cipher.
    pub cipher: Cipher,
    /// The user (open) password; empty opens without asking.
    pub user_password: String,
    /// The owner (permissions) password.
    pub owner_password: String,
}

fn rc4(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut s: Vec<u8> = (0..=255u8).collect();
    let mut j = 0u8;
    for i in 0..256 {
        j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len()]);
        s.swap(i, j as usize);
    }
    let (mut i, mut j) = (0u8, 0u8);
    data.iter()
        .map(|b| {
            i = i.wrapping_add(1);
            j = j.wrapping_add(s[i as usize]);
            s.swap(i as usize, j as usize);
            b ^ s[s[i as usize].wrapping_add(s[j as usize]) as usize]
        })
        .collect()
}

fn padded(password: &str) -> Vec<u8> {
    password.bytes().chain(PAD).take(32).collect()
}

/// RC4 with the key, then 19 times with the key XOR 1..=19 (algorithms 3 and 5).
fn rc4_20(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut x = rc4(key, data);
    for i in 1..=19u8 {
        let k: Vec<u8> = key.iter().map(|b| b ^ i).collect();
        x = rc4(&k, &x);
    }
    x
}

/// The keys of an encrypted document and its `/Encrypt` dictionary.
#[derive(Clone, Debug)]
pub struct Keys {
    cipher: Cipher,
    key: Vec<u8>,
    /// The `/Encrypt` dictionary.
    pub dict: String,
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::from("<");
    for b in bytes {
        let _ = write!(s, "{b:02X}");
    }
    s.push('>');
    s
}

/// AES-CBC encryption of whole blocks (128- or 256-bit key).
fn aes_cbc(key: &[u8], iv: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut prev = *iv;
    for chunk in data.chunks_exact(16) {
        let mut b = [0u8; 16];
        for (i, x) in b.iter_mut().enumerate() {
            *x = chunk[i] ^ prev[i];
        }
        let block = GenericArray::from_mut_slice(&mut b);
        if key.len() == 32 {
            aes::Aes256::new(GenericArray::from_slice(key)).encrypt_block(block);
        } else {
            aes::Aes128::new(GenericArray::from_slice(key)).encrypt_block(block);
        }
        out.extend_from_slice(&b);
        prev = b;
    }
    out
}

/// Algorithm 2.B (ISO 32000-2): hash of password + salt (+ `/U` for the owner).
fn hash_r6(password: &[u8], salt: &[u8], udata: &[u8]) -> Vec<u8> {
    let input: Vec<u8> = [password, salt, udata].concat();
    let mut k = Sha256::digest(&input).to_vec();
    let mut round = 0usize;
    loop {
        let k1: Vec<u8> = [password, &k, udata].concat().repeat(64);
        let iv: [u8; 16] = k[16..32].try_into().expect("16 bytes");
        let e = aes_cbc(&k[..16], &iv, &k1);
        let sum: u32 = e[..16].iter().map(|&b| u32::from(b)).sum();
        k = match sum % 3 {
            0 => Sha256::digest(&e).to_vec(),
            1 => Sha384::digest(&e).to_vec(),
            _ => Sha512::digest(&e).to_vec(),
        };
        round += 1;
        if round >= 64 && usize::from(*e.last().expect("non-empty")) + 32 <= round {
            break;
        }
    }
    k.truncate(32);
    k
}

impl Keys {
    /// R6: a fixed file key; `/U`, `/UE`, `/O`, `/OE` (algorithms 8 and 9) and `/Perms` (10).
    fn new_r6(e: &Encryption) -> Keys {
        let key: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(29) ^ 0x5C).collect();
        let (uv, uk) = (*b"uvsalt01", *b"uksalt01");
        let (ov, ok) = (*b"ovsalt01", *b"oksalt01");
        let up = e.user_password.as_bytes();
        let op = e.owner_password.as_bytes();
        let u = [hash_r6(up, &uv, &[]), uv.to_vec(), uk.to_vec()].concat();
        let ue = aes_cbc(&hash_r6(up, &uk, &[]), &[0; 16], &key);
        let o = [hash_r6(op, &ov, &u), ov.to_vec(), ok.to_vec()].concat();
        let oe = aes_cbc(&hash_r6(op, &ok, &u), &[0; 16], &key);
        let mut perms = [0u8; 16];
        perms[..4].copy_from_slice(&PERMISSIONS.to_le_bytes());
        perms[4..8].copy_from_slice(&[0xFF; 4]);
        perms[8..12].copy_from_slice(b"Tadb");
        let perms = aes_cbc(&key, &[0; 16], &perms); // one block: ECB
        let dict = format!(
            "<< /Filter /Standard /V 5 /R 6 /Length 256 /CF << /StdCF << /CFM /AESV3 \
             /AuthEvent /DocOpen /Length 32 >> >> /StmF /StdCF /StrF /StdCF /P {PERMISSIONS} \
             /O {} /U {} /OE {} /UE {} /Perms {} >>",
            hex(&o),
            hex(&u),
            hex(&oe),
            hex(&ue),
            hex(&perms)
        );
        Keys {
            cipher: e.cipher,
            key,
            dict,
        }
    }

    /// Computes `/O` (algorithm 3), the file key (algorithm 2) and `/U` (algorithm 5).
    pub fn new(e: &Encryption) -> Keys {
        if e.cipher == Cipher::Aes256 {
            return Keys::new_r6(e);
        }
        const N: usize = 16;
        let mut h = Md5::digest(padded(&e.owner_password)).to_vec();
        for _ in 0..50 {
            h = Md5::digest(&h).to_vec();
        }
        let o = rc4_20(&h[..N], &padded(&e.user_password));
        let mut m = Md5::new();
        m.update(padded(&e.user_password));
        m.update(&o);
        m.update(PERMISSIONS.to_le_bytes());
        m.update(FILE_ID);
        let mut key = m.finalize().to_vec();
        for _ in 0..50 {
            key = Md5::digest(&key[..N]).to_vec();
        }
        key.truncate(N);
        let mut m = Md5::new();
        m.update(PAD);
        m.update(FILE_ID);
        let mut u = rc4_20(&key, &m.finalize());
        u.extend_from_slice(&[0u8; 16]);
        let filter = match e.cipher {
            Cipher::Rc4_128 => "/V 2 /R 3".to_string(),
            Cipher::Aes128 | Cipher::Aes256 => {
                "/V 4 /R 4 /CF << /StdCF << /CFM /AESV2 /AuthEvent /DocOpen \
                 /Length 16 >> >> /StmF /StdCF /StrF /StdCF"
                    .to_string()
            }
        };
        let dict = format!(
            "<< /Filter /Standard {filter} /Length 128 /P {PERMISSIONS} /O {} /U {} >>",
            hex(&o),
            hex(&u)
        );
        Keys {
            cipher: e.cipher,
            key,
            dict,
        }
    }

    /// Encrypts the data of a string or stream of object `num` (generation 0).
    pub fn encrypt(&self, num: u32, data: &[u8]) -> Vec<u8> {
        let iv: [u8; 16] = Md5::digest(num.to_be_bytes()).into();
        let padded = |data: &[u8]| {
            let pad = 16 - data.len() % 16;
            let mut plain = data.to_vec();
            plain.extend(std::iter::repeat_n(pad as u8, pad));
            plain
        };
        if self.cipher == Cipher::Aes256 {
            return [iv.to_vec(), aes_cbc(&self.key, &iv, &padded(data))].concat();
        }
        let aes = self.cipher == Cipher::Aes128;
        let mut m = Md5::new();
        m.update(&self.key);
        m.update(&num.to_le_bytes()[..3]);
        m.update([0u8, 0]);
        if aes {
            m.update(b"sAlT");
        }
        let k = m.finalize();
        if !aes {
            return rc4(&k, data);
        }
        [iv.to_vec(), aes_cbc(&k, &iv, &padded(data))].concat()
    }

    /// Rewrites the literal strings `(...)` of an object body (no escapes or nesting) as hex
    /// strings of their encryption.
    pub fn encrypt_strings(&self, num: u32, body: &str) -> String {
        let mut out = String::new();
        let mut rest = body;
        while let Some(open) = rest.find('(') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let close = after.find(')').unwrap_or(after.len());
            out.push_str(&hex(&self.encrypt(num, &after.as_bytes()[..close])));
            rest = after.get(close + 1..).unwrap_or("");
        }
        out.push_str(rest);
        out
    }
}
