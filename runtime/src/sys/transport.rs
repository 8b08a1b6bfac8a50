//! How batches travel between ranks: MPI in a real run (`sys::mpi`), in-process channels in the
//! protocol's tests. One thread of a process (its communication thread) owns the transport.

#[cfg(test)]
use std::sync::mpsc::{channel, Receiver, Sender};

/// Facts about this process in the job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// This process's rank.
    pub rank: usize,
    /// Number of ranks.
    pub size: usize,
    /// The node's host name.
    pub host: String,
}

/// Moves batches between ranks, in order between any two of them.
pub trait Transport: Send {
    /// Where this process is.
    fn place(&self) -> &Place;
    /// Starts sending `batch` to `dest`; the transport owns it until the send completes.
    fn send(&mut self, dest: usize, batch: Vec<u8>) -> Result<(), String>;
    /// Advances sends in flight; returns how many are still in flight.
    fn progress(&mut self) -> Result<usize, String>;
    /// A batch that arrived, with its source rank, if any (never blocks).
    fn poll(&mut self) -> Result<Option<(usize, Vec<u8>)>, String>;
    /// Ends every rank of the job now with `code` (a failure that cannot be reported otherwise).
    fn abort(&mut self, code: i32) -> !;
    /// Leaves the job cleanly (after the last send completed).
    fn finalize(&mut self);
}

#[cfg(test)]
/// One rank of an in-process job: channels to every other rank of the same [`local_job`].
pub struct LocalTransport {
    place: Place,
    to: Vec<Sender<(usize, Vec<u8>)>>,
    from: Receiver<(usize, Vec<u8>)>,
}

#[cfg(test)]
/// `size` connected in-process ranks, for tests of the protocol without MPI.
pub fn local_job(size: usize) -> Vec<LocalTransport> {
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..size).map(|_| channel()).unzip();
    receivers
        .into_iter()
        .enumerate()
        .map(|(rank, from)| LocalTransport {
            place: Place {
                rank,
                size,
                host: format!("local{rank}"),
            },
            to: senders.clone(),
            from,
        })
        .collect()
}

#[cfg(test)]
impl Transport for LocalTransport {
    fn place(&self) -> &Place {
        &self.place
    }

    fn send(&mut self, dest: usize, batch: Vec<u8>) -> Result<(), String> {
        let to = self
            .to
            .get(dest)
            .ok_or_else(|| format!("no rank {dest} in a job of {}", self.place.size))?;
        // A rank that left (its receiver dropped) loses the message, as a dead MPI rank would.
        let _ = to.send((self.place.rank, batch));
        Ok(())
    }

    fn progress(&mut self) -> Result<usize, String> {
        Ok(0)
    }

    fn poll(&mut self) -> Result<Option<(usize, Vec<u8>)>, String> {
        Ok(self.from.try_recv().ok())
    }

    fn abort(&mut self, code: i32) -> ! {
        panic!("in-process job aborted with code {code}")
    }

    fn finalize(&mut self) {}
}
