//! Descriptor tables generated from Mesa's genxml (`tools/gen_hw.py`; see its
//! header for the rules): `common` holds every enum, struct and aggregate that
//! v6 and v7 define identically, `v6` and `v7` what differs, each
//! re-exporting `common`, so `genxml::v6::X` and `genxml::v7::X` name the two
//! architectures' tables of genxml's "X" whether or not they differ.
//!
//! The topic modules beside this one (`hw::fbd`, `hw::shader` ...) re-export
//! these under the names the driver uses and add what genxml does not say.

#[rustfmt::skip]
pub mod common;
#[rustfmt::skip]
pub mod v6;
#[rustfmt::skip]
pub mod v7;

#[cfg(test)]
mod tests {
    use crate::hw::{Arch, layouts};

    /// A v6/v7 difference is a difference of data: the same name in both
    /// modules, and shared tables are the same statics.
    #[test]
    fn arch_differences_are_data() {
        let (v6, v7) = (&super::v6::RENDER_TARGET, &super::v7::RENDER_TARGET);
        assert_eq!(v6.name, v7.name);
        let w6 = v6.lookup("Writeback Block Format").unwrap();
        let w7 = v7.lookup("Writeback Block Format").unwrap();
        assert_eq!((w6.start, w6.width, w7.start, w7.width), (42, 2, 40, 4));
        assert!(v6.lookup("Writeback Endianness").is_some());
        assert!(v7.lookup("Writeback Endianness").is_none());
        assert!(std::ptr::eq(
            &super::v6::TILER_CONTEXT,
            &super::v7::TILER_CONTEXT
        ));
        assert!(!std::ptr::eq(&super::v6::PRIMITIVE, &super::v7::PRIMITIVE));
        // v6 names Draw Mode 15, v7 does not.
        let mut w = super::v6::PRIMITIVE.defaults();
        super::v6::primitive::DRAW_MODE.set(&mut w, 15).unwrap();
        assert!(
            super::v6::PRIMITIVE
                .dump(&w, 0)
                .contains("Draw mode: Quad strip\n")
        );
        assert!(
            super::v7::PRIMITIVE
                .dump(&w, 0)
                .contains("Draw mode: XXX: INVALID\n")
        );
        // Every table `hw::layouts` hands out is one of the generated ones.
        for (arch, all) in [
            (Arch::V6, super::v6::LAYOUTS),
            (Arch::V7, super::v7::LAYOUTS),
        ] {
            for l in layouts(arch).all() {
                assert!(
                    all.iter().any(|g| std::ptr::eq(*g, l)),
                    "{arch:?} {}",
                    l.name
                );
            }
        }
    }

    /// The checked-in tables are what `tools/gen_hw.py` makes of the genxml
    /// files (skipped where python3 or the reference data is missing).
    #[test]
    fn generated_tables_are_up_to_date() {
        let root = env!("CARGO_MANIFEST_DIR");
        let genxml = crate::reference_path!("genxml");
        if !std::path::Path::new(&format!("{genxml}/v7.xml")).exists() {
            eprintln!("skipped: {genxml} not found");
            return;
        }
        let out = std::env::temp_dir().join(format!("bifrost-gen-hw-{}", std::process::id()));
        let Ok(run) = std::process::Command::new("python3")
            .arg(format!("{root}/tools/gen_hw.py"))
            .arg(genxml)
            .arg(&out)
            .output()
        else {
            eprintln!("skipped: python3 not available");
            return;
        };
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        for file in ["common.rs", "v6.rs", "v7.rs"] {
            let fresh = std::fs::read(out.join(file)).unwrap();
            let checked_in = std::fs::read(format!("{root}/src/hw/genxml/{file}")).unwrap();
            assert!(
                fresh == checked_in,
                "src/hw/genxml/{file} is stale: python3 tools/gen_hw.py {genxml} src/hw/genxml"
            );
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}
