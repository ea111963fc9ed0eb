//! A bounded submission/completion queue pair. The submission queue's depth
//! is the host's queue depth; a full queue refuses, it never grows.

use super::command::{Command, Completion};
use crate::sim::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueFull;

#[derive(Debug)]
pub struct QueuePair {
    depth: usize,
    sq: VecDeque<(SimTime, Command)>,
    cq: VecDeque<Completion>,
    /// Submitted and not yet reaped by the host.
    outstanding_count: usize,
}

impl QueuePair {
    pub fn new(depth: usize) -> Self {
        assert!(depth >= 1, "queue depth must be at least 1");
        QueuePair {
            depth,
            sq: VecDeque::with_capacity(depth),
            cq: VecDeque::with_capacity(depth),
            outstanding_count: 0,
        }
    }

    pub fn depth(&self) -> usize {
        self.depth
    }

    pub fn outstanding_count(&self) -> usize {
        self.outstanding_count
    }

    /// Host side: ring the doorbell with `cmd` at `at`.
    pub fn submit(&mut self, at: SimTime, cmd: Command) -> Result<(), QueueFull> {
        if self.outstanding_count >= self.depth {
            return Err(QueueFull);
        }
        self.outstanding_count += 1;
        self.sq.push_back((at, cmd));
        Ok(())
    }

    /// Device side: fetch the next submitted command.
    pub fn fetch(&mut self) -> Option<(SimTime, Command)> {
        self.sq.pop_front()
    }

    /// Device side: post a completion.
    pub fn post(&mut self, c: Completion) {
        assert!(self.cq.len() < self.depth, "completion queue overflow (depth {})", self.depth);
        self.cq.push_back(c);
    }

    /// Host side: reap one completion.
    pub fn reap(&mut self) -> Option<Completion> {
        let c = self.cq.pop_front()?;
        self.outstanding_count -= 1;
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvme::{CommandId, CompletionFlags, Opcode, Status};

    #[test]
    fn bounded_by_depth() {
        let mut q = QueuePair::new(2);
        let cmd = |i| Command { id: CommandId(i), op: Opcode::Flush };
        assert!(q.submit(SimTime(0), cmd(1)).is_ok());
        assert!(q.submit(SimTime(0), cmd(2)).is_ok());
        assert_eq!(q.submit(SimTime(0), cmd(3)), Err(QueueFull));
        let (_, c) = q.fetch().unwrap();
        q.post(Completion { id: c.id, status: Status::Success, flags: CompletionFlags::default(), at: SimTime(5), assigned: None });
        assert_eq!(q.reap().unwrap().id, CommandId(1));
        assert!(q.submit(SimTime(6), cmd(3)).is_ok());
    }
}
