//! Re-checks, on a decoded binary, the tuple and clause rules our
//! scheduler and packer rely on (`sched.rs`, `pack.rs`), independently of
//! how the binary was scheduled. Debug builds run it on every binary the
//! backend compiles (`compile_optimized`), so every test that compiles a
//! shader checks it.
//!
//! Rules:
//! - a clause holds 1 to 8 tuples;
//! - at most one message instruction per clause, the last tuple's ADD
//!   instruction — or the one before a last tuple holding only the
//!   clause's branch, which then reads no staging register the message
//!   writes — and the header's message type is that message's (0 for
//!   none); `DISCARD`, `BRANCHZ` and `JUMP` only in the last tuple;
//! - the first tuple of a clause never reads the previous tuple's results
//!   (`t0`, `t1`): no tuple precedes it in the clause;
//! - a register the previous tuple writes is read through its passthrough,
//!   never a register port (the port would still see the old value, which
//!   the scheduler never wants: a read of the old value is scheduled no
//!   later than the write);
//! - a message's staging registers are not written by the FMA instruction
//!   of its own tuple (that write lands a tuple later);
//! - a message clause that falls through to the next clause waits, in its
//!   header, on the scoreboard slot its message signals (the next clause
//!   may read its results).
//!
//! It must never modify or re-encode anything, and it judges only our
//! own binaries (Mesa's scheduler follows other conventions).

use crate::hw::isa::DecodedClause;
use crate::hw::isa::Instr;
use crate::hw::isa::Operand;
use crate::hw::isa::clause::FlowControl;
use crate::hw::isa::opcode::{Message, StagingCount};

fn is_message(i: &Instr) -> bool {
    i.fields.op.message != Message::None
}

fn ends_clause(i: &Instr) -> bool {
    let n = i.name();
    is_message(i) || n.starts_with("DISCARD") || is_branch(i)
}

fn is_branch(i: &Instr) -> bool {
    let n = i.name();
    n.starts_with("BRANCH") || n == "JUMP"
}

/// Staging registers of a message (count as the simulator reads them).
fn staging_count(i: &Instr) -> u8 {
    match i.fields.op.staging.count {
        StagingCount::None => 0,
        StagingCount::Fixed(n) => n,
        StagingCount::SrCount => 1,
        StagingCount::Format | StagingCount::Vecsize => {
            match i.fields.modifier("vecsize").unwrap_or("none") {
                "v2" => 2,
                "v3" => 3,
                "v4" => 4,
                _ => 1,
            }
        }
    }
}

/// Checks the clauses of one shader (as `decode_shader` returns them);
/// the error names the clause (its quadword offset) and the rule.
pub fn check_clauses(clauses: &[(usize, DecodedClause)]) -> Result<(), String> {
    for (ci, (qw, c)) in clauses.iter().enumerate() {
        let fail = |what: String| Err(format!("clause at quadword {qw}: {what}"));
        let n = c.tuples.len();
        if n == 0 || n > 8 {
            return fail(format!("{n} tuples"));
        }
        let mut message_type = 0u8;
        // A last tuple holding only the clause's branch.
        let lone_branch =
            n > 1 && c.tuples[n - 1].fma.name() == "NOP" && is_branch(&c.tuples[n - 1].add);
        for (ti, t) in c.tuples.iter().enumerate() {
            let last = ti + 1 == n;
            let before_branch = ti + 2 == n && lone_branch && is_message(&t.add);
            if ends_clause(&t.fma) || (!last && !before_branch && ends_clause(&t.add)) {
                return fail(format!(
                    "tuple {ti}: {} / {} before the clause's end",
                    t.fma.name(),
                    t.add.name()
                ));
            }
            if is_message(&t.add) {
                message_type = c.header.message_type;
                let first = c.header.staging_register;
                let count = staging_count(&t.add);
                let staged = first..first.saturating_add(count);
                if let Some(w) = t.fma.dest
                    && staged.contains(&w.reg)
                {
                    return fail(format!(
                        "tuple {ti}: {} writes r{} beside {} with staging r{first}+{count}",
                        t.fma.name(),
                        w.reg,
                        t.add.name()
                    ));
                }
                if before_branch
                    && t.add.fields.op.staging.write
                    && let Some(r) = c.tuples[n - 1].add.srcs.iter().find_map(|s| match s {
                        Operand::Reg(r) if staged.contains(r) => Some(*r),
                        _ => None,
                    })
                {
                    return fail(format!(
                        "the branch reads r{r}, which {} writes after the clause",
                        t.add.name()
                    ));
                }
            }
            let srcs = t.fma.srcs.iter().chain(&t.add.srcs);
            let prev = (ti > 0).then(|| &c.tuples[ti - 1]);
            for s in srcs {
                match (s, prev) {
                    (Operand::PrevFma | Operand::PrevAdd, None) => {
                        return fail("the first tuple reads t0/t1".into());
                    }
                    (Operand::Reg(r), Some(p))
                        if [p.fma.dest, p.add.dest]
                            .iter()
                            .flatten()
                            .any(|w| w.reg == *r) =>
                    {
                        return fail(format!(
                            "tuple {ti} reads r{r} through a port; the previous tuple writes it"
                        ));
                    }
                    _ => {}
                }
            }
        }
        let has_message = c.tuples.iter().any(|t| is_message(&t.add));
        if !has_message && c.header.message_type != 0 {
            return fail(format!(
                "header message type {} without a message",
                c.header.message_type
            ));
        }
        if has_message && message_type == 0 {
            return fail("a message with header message type 0".into());
        }
        let falls_through = c.header.flow_control != FlowControl::End as u8
            && c.tuples[n - 1].add.name() != "JUMP"
            && ci + 1 < clauses.len();
        if has_message
            && falls_through
            && c.header.dependency_wait & (1 << (c.header.dependency_slot & 7)) == 0
        {
            return fail(format!(
                "message clause does not wait on its slot {} before the next clause",
                c.header.dependency_slot
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::bifrost::asm::assemble_clauses;

    fn check(text: &str) -> Result<(), String> {
        check_clauses(&assemble_clauses(text).expect("assembles"))
    }

    const LOAD_THEN_ADD: &str = "clause_0:\nds(0) nbb load ncph next_load dwb(0) \n{\n    *NOP t0\n    +IADD.s32 r1:t1, r2, r3\n    *NOP t0\n    +IADD.s32 r6:t1, r2, r3\n    *NOP t0\n    +LOAD.i32 t1, r1, t1, @r4\n}\n\nclause_3:\nds(0) eos ncph \n{\n    *NOP t0\n    +IADD.s32 r5:t1, r4, r4\n}\n";

    #[test]
    fn accepts_a_well_formed_shader() {
        check(LOAD_THEN_ADD).unwrap();
    }

    #[test]
    fn finds_a_message_that_does_not_wait() {
        let text = LOAD_THEN_ADD.replace(" dwb(0) ", " ");
        let e = check(&text).unwrap_err();
        assert!(e.contains("does not wait"), "{e}");
    }

    #[test]
    fn finds_a_message_before_the_clause_end() {
        let text = "clause_0:\nds(0) nbb load ncph dwb(0) \n{\n    *NOP t0\n    +LOAD.i32 t1, r1, r2, @r4\n    *NOP t0\n    +IADD.s32 r5:t1, r2, r3\n}\n\nclause_3:\nds(0) eos ncph \n{\n    *NOP t0\n    +IADD.s32 r6:t1, r4, r4\n}\n";
        let e = check(text).unwrap_err();
        assert!(e.contains("before the clause's end"), "{e}");
    }

    /// A load, then the clause's branch on another register: allowed (Mesa
    /// puts branches after messages so); on the loaded register: not.
    #[test]
    fn a_branch_may_follow_a_message_it_does_not_read() {
        let text = |cond: &str| {
            format!(
                "clause_0:\nds(0) nbb r_uncond load ncph dwb(0) \n{{\n    *NOP t0\n    +LOAD.i32 t1, r1, r2, @r4\n    *NOP t0\n    +BRANCHZ.i32.eq t1, {cond}, clause_4\n}}\n\nclause_4:\nds(0) eos ncph \n{{\n    *NOP t0\n    +IADD.s32 r5:t1, r4, r4\n}}\n"
            )
        };
        check(&text("r6")).unwrap();
        let e = check(&text("r4")).unwrap_err();
        assert!(e.contains("the branch reads r4"), "{e}");
    }

    #[test]
    fn finds_a_port_read_of_the_previous_result() {
        let text = "clause_0:\nds(0) eos ncph \n{\n    *NOP t0\n    +IADD.s32 r1:t1, r2, r3\n    *NOP t0\n    +IADD.s32 r5:t1, r1, r3\n}\n";
        let e = check(text).unwrap_err();
        assert!(e.contains("reads r1 through a port"), "{e}");
    }

    #[test]
    fn finds_a_staging_register_written_beside_its_message() {
        let text = "clause_0:\nds(0) eos store ncph \n{\n    *MOV.i32 r4:t0, r7\n    +STORE.i32 t1, r1, r2, @r4\n}\n";
        let e = check(text).unwrap_err();
        assert!(e.contains("staging"), "{e}");
    }
}
