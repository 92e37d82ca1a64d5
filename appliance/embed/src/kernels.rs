//! Element-wise kernels of the CPU BERT path: GELU (erf), scaled softmax rows, layer norm.
//!
//! Written so that the compiler vectorises them (no branches in the loops, no calls into libm),
//! and compiled again for AVX2 and for AVX-512 (with FMA), chosen at run time. `exp` is the Cephes
//! polynomial (relative error about 1e-7), `erf` is Abramowitz and Stegun 7.1.26 (absolute
//! error below 1.5e-7), as PyTorch's vectorised CPU kernels use them.

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// Adding and subtracting 1.5 × 2²³ rounds an f32 of magnitude below 2²² to an integer.
const ROUND: f32 = 12_582_912.0;
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;

/// a · b + c, fused where the function is compiled with FMA (`F`), plain otherwise (a fused
/// multiply-add without the instruction is a slow libm call).
#[inline(always)]
fn madd<const F: bool>(a: f32, b: f32, c: f32) -> f32 {
    if F {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// e^x for x ≤ 88 (below −87.3 it returns about 1e-38 rather than 0).
#[inline(always)]
fn exp<const F: bool>(x: f32) -> f32 {
    // Comparisons rather than `clamp`: one min and one max instruction once vectorised.
    let x = if x < -87.3 { -87.3 } else { x };
    let x = if x > 88.0 { 88.0 } else { x };
    // t's low mantissa bits hold n = round(x · log₂e) (|n| < 2²²).
    let t = madd::<F>(x, LOG2E, ROUND);
    let n = t - ROUND;
    let k = (t.to_bits() as i32).wrapping_sub(0x4B40_0000);
    let r = madd::<F>(n, -LN2_HI, x);
    let r = madd::<F>(n, -LN2_LO, r);
    let mut y = 1.987_569_2e-4_f32;
    y = madd::<F>(y, r, 1.398_199_9e-3);
    y = madd::<F>(y, r, 8.333_452e-3);
    y = madd::<F>(y, r, 4.166_579_6e-2);
    y = madd::<F>(y, r, 1.666_666_5e-1);
    y = madd::<F>(y, r, 0.5);
    y = madd::<F>(y, r * r, r) + 1.0;
    // k is an integer in [−126, 127]: 2ᵏ from its bits.
    y * f32::from_bits((k.wrapping_add(127) as u32) << 23)
}

/// erf(x), absolute error below 1.5e-7.
#[inline(always)]
fn erf<const F: bool>(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / madd::<F>(0.327_591_1, a, 1.0);
    let mut p = 1.061_405_4_f32;
    p = madd::<F>(p, t, -1.453_152_1);
    p = madd::<F>(p, t, 1.421_413_8);
    p = madd::<F>(p, t, -0.284_496_74);
    p = madd::<F>(p, t, 0.254_829_6);
    let y = 1.0 - p * t * exp::<F>(-a * a);
    y.copysign(x)
}

#[inline(always)]
fn gelu_body<const F: bool>(xs: &mut [f32]) {
    for x in xs {
        let v = *x;
        *x = 0.5 * v * (1.0 + erf::<F>(v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// Lane-wise maximum of a row (16 lanes, so that it vectorises without reassociation).
#[inline(always)]
fn row_max(row: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 16];
    let chunks = row.chunks_exact(16);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..16 {
            lanes[i] = if c[i] > lanes[i] { c[i] } else { lanes[i] };
        }
    }
    let mut m = f32::NEG_INFINITY;
    for v in lanes.iter().chain(rest) {
        m = if *v > m { *v } else { m };
    }
    m
}

#[inline(always)]
fn softmax_body<const F: bool>(xs: &mut [f32], width: usize, scale: f32) {
    for row in xs.chunks_exact_mut(width) {
        let m = row_max(row);
        let shift = -m * scale;
        let mut lanes = [0f32; 16];
        let mut chunks = row.chunks_exact_mut(16);
        for c in &mut chunks {
            for i in 0..16 {
                c[i] = exp::<F>(madd::<F>(c[i], scale, shift));
                lanes[i] += c[i];
            }
        }
        let mut sum: f32 = lanes.iter().sum();
        for v in chunks.into_remainder() {
            *v = exp::<F>(madd::<F>(*v, scale, shift));
            sum += *v;
        }
        let inv = 1.0 / sum;
        for v in row.iter_mut() {
            *v *= inv;
        }
    }
}

/// The instruction sets the kernels were compiled for, best first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Isa {
    Avx512,
    Avx2,
    Generic,
}

fn isa() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static ISA: OnceLock<Isa> = OnceLock::new();
        *ISA.get_or_init(|| {
            let avx2 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma");
            if avx2 && std::arch::is_x86_feature_detected!("avx512f") {
                Isa::Avx512
            } else if avx2 {
                Isa::Avx2
            } else {
                Isa::Generic
            }
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    Isa::Generic
}

/// The kernels compiled for AVX-512 and for AVX2, both with FMA.
#[cfg(target_arch = "x86_64")]
mod x86 {
    #[target_feature(enable = "avx512f,avx2,fma")]
    pub fn gelu_avx512(xs: &mut [f32]) {
        super::gelu_body::<true>(xs)
    }

    #[target_feature(enable = "avx2,fma")]
    pub fn gelu_avx2(xs: &mut [f32]) {
        super::gelu_body::<true>(xs)
    }

    #[target_feature(enable = "avx512f,avx2,fma")]
    pub fn softmax_avx512(xs: &mut [f32], width: usize, scale: f32) {
        super::softmax_body::<true>(xs, width, scale)
    }

    #[target_feature(enable = "avx2,fma")]
    pub fn softmax_avx2(xs: &mut [f32], width: usize, scale: f32) {
        super::softmax_body::<true>(xs, width, scale)
    }
}

/// GELU with the exact (erf) form, in place: x · ½ · (1 + erf(x / √2)).
pub fn gelu_erf(xs: &mut [f32]) {
    match isa() {
        // SAFETY: the CPU has the features the functions were compiled for.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::gelu_avx512(xs) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::gelu_avx2(xs) },
        _ => gelu_body::<false>(xs),
    }
}

/// Softmax of each row of `width` values of `xs` after multiplying them by `scale`, in place.
pub fn softmax_rows(xs: &mut [f32], width: usize, scale: f32) {
    if width == 0 {
        return;
    }
    match isa() {
        // SAFETY: the CPU has the features the functions were compiled for.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::softmax_avx512(xs, width, scale) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::softmax_avx2(xs, width, scale) },
        _ => softmax_body::<false>(xs, width, scale),
    }
}

/// Layer norm of one row in place (biased variance, as PyTorch), with weight and bias.
pub fn layer_norm(row: &mut [f32], weight: &[f32], bias: &[f32], eps: f32) {
    let n = row.len() as f64;
    let mean = row.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = row
        .iter()
        .map(|&v| {
            let d = v as f64 - mean;
            d * d
        })
        .sum::<f64>()
        / n;
    let inv = (1.0 / (var + eps as f64).sqrt()) as f32;
    let mean = mean as f32;
    for ((v, w), b) in row.iter_mut().zip(weight).zip(bias) {
        *v = (*v - mean) * inv * w + b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_erf_match_libm() {
        let mut worst_exp = 0f64;
        let mut worst_erf = 0f64;
        for i in -20_000..=2_000 {
            let x = i as f32 * 0.004;
            let rel = ((exp::<false>(x) as f64 - (x as f64).exp()) / (x as f64).exp()).abs();
            let fused = ((exp::<true>(x) as f64 - (x as f64).exp()) / (x as f64).exp()).abs();
            worst_exp = worst_exp.max(fused);
            worst_exp = worst_exp.max(rel);
            let e = (erf::<false>(x) as f64 - libm_erf(x as f64)).abs();
            worst_erf = worst_erf.max(e);
        }
        assert!(worst_exp < 5e-7, "exp relative error {worst_exp}");
        assert!(worst_erf < 5e-7, "erf absolute error {worst_erf}");
        assert!(exp::<false>(-1000.0) < 1e-30 && exp::<true>(-1000.0) < 1e-30);
    }

    /// erf by its series / continued fraction in f64 (reference for the test only).
    fn libm_erf(x: f64) -> f64 {
        // erf(x) = 2/√π Σ (−1)ⁿ x^(2n+1) / (n! (2n+1)), enough terms for |x| ≤ 8 in f64 are
        // too many; use erfc's continued fraction beyond 3.
        if x.abs() > 3.0 {
            let a = x.abs();
            let mut f = 0.0;
            for k in (1..60).rev() {
                f = (k as f64 / 2.0) / (a + f);
            }
            let erfc = (-a * a).exp() / std::f64::consts::PI.sqrt() / (a + f);
            return (1.0 - erfc).copysign(x);
        }
        let mut sum = 0.0;
        let mut term = x;
        for n in 0..80 {
            sum += term / (2 * n + 1) as f64;
            term *= -x * x / (n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn softmax_rows_sum_to_one_and_match() {
        let width = 13;
        let mut xs: Vec<f32> = (0..width * 3)
            .map(|i| ((i * 7) % 11) as f32 - 5.0)
            .collect();
        let orig = xs.clone();
        softmax_rows(&mut xs, width, 0.5);
        for (row, o) in xs.chunks(width).zip(orig.chunks(width)) {
            let m = o.iter().cloned().fold(f32::NEG_INFINITY, f32::max) as f64;
            let z: f64 = o.iter().map(|&v| ((v as f64 - m) * 0.5).exp()).sum();
            for (p, v) in row.iter().zip(o) {
                let want = ((*v as f64 - m) * 0.5).exp() / z;
                assert!((*p as f64 - want).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn gelu_matches_definition() {
        let mut xs: Vec<f32> = (-400..400).map(|i| i as f32 * 0.02).collect();
        let orig = xs.clone();
        gelu_erf(&mut xs);
        for (g, x) in xs.iter().zip(orig) {
            let want = 0.5 * x as f64 * (1.0 + libm_erf(x as f64 / std::f64::consts::SQRT_2));
            assert!((*g as f64 - want).abs() < 1e-6, "{x}: {g} vs {want}");
        }
    }
}
