//! The driver's internal GPU kernels, built with the IR builder in the form
//! `lower_sysvals` produces (push uniforms read with `load_uniform`, memory
//! through 64-bit addresses), so that they go straight to a backend.
//!
//! Each kernel documents its push-uniform words (64-bit FAU words, `Options::
//! push_uniform_words` is [`xfb::Kernel::words`]) and what it reads and
//! writes; nothing here records jobs (that is `jm`).

pub mod xfb;
