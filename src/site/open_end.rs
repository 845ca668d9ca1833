//! A page whose last bytes are written per answer: the form page's page-load proof, in a hidden
//! field, for a browser that keeps no cookie and runs no script (ADR 0066). Everything before the
//! slot is compressed once, at the best level, and left open; each answer appends the slot's text
//! and the rest of the page as stored bytes, which both formats allow after a flush (RFC 7932
//! §9.2, an uncompressed meta-block; RFC 1951 §3.2.4, a stored block). So an answer compresses
//! nothing: it copies the open head and adds a few hundred bytes.

use std::io::Write;
use std::sync::OnceLock;

use bytes::Bytes;

/// A page split at its slot: the head before it, the end after it (both views of the page's own
/// bytes), and the head compressed and left open (each made on first use, as `Body`'s compressed
/// forms are).
#[derive(Debug)]
pub struct OpenEnd {
    head: Bytes,
    end: Bytes,
    brotli: OnceLock<OpenBrotli>,
    gzip: OnceLock<OpenGzip>,
}

impl OpenEnd {
    /// `html` split at `slot`, a byte offset where the filled text goes.
    pub fn new(html: Bytes, slot: usize) -> OpenEnd {
        OpenEnd {
            head: html.slice(..slot),
            end: html.slice(slot..),
            brotli: OnceLock::new(),
            gzip: OnceLock::new(),
        }
    }

    pub fn identity(&self, filled: &str) -> Vec<u8> {
        [&self.head[..], filled.as_bytes(), &self.end[..]].concat()
    }

    pub fn brotli(&self, filled: &str) -> Vec<u8> {
        self.brotli
            .get_or_init(|| OpenBrotli::new(&self.head))
            .end_with(&[filled.as_bytes(), &self.end].concat())
    }

    pub fn gzip(&self, filled: &str) -> Vec<u8> {
        self.gzip.get_or_init(|| OpenGzip::new(&self.head)).end_with(&[filled.as_bytes(), &self.end].concat())
    }
}

/// A brotli stream of the head at quality 11 (as `site::compress_brotli`), flushed to a byte
/// boundary and not ended.
#[derive(Debug)]
struct OpenBrotli(Bytes);

impl OpenBrotli {
    fn new(head: &[u8]) -> OpenBrotli {
        let mut writer = brotli::CompressorWriter::new(Vec::new(), 4096, 11, 22);
        writer.write_all(head).expect("writing to memory");
        // BROTLI_OPERATION_FLUSH: what was written can be decoded, and the stream goes on.
        writer.flush().expect("writing to memory");
        OpenBrotli(Bytes::copy_from_slice(writer.get_ref()))
    }

    /// The whole stream: the head, `tail` in uncompressed meta-blocks, and the last, empty one.
    fn end_with(&self, tail: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.0.len() + tail.len() + 8);
        out.extend_from_slice(&self.0);
        for chunk in tail.chunks(1 << 16) {
            // ISLAST 0; MNIBBLES 4 (coded 0); MLEN - 1 in 16 bits; ISUNCOMPRESSED 1; then zero
            // bits to the byte boundary: 20 bits, least significant first, in 3 bytes.
            let header = ((chunk.len() as u32 - 1) << 3) | (1 << 19);
            out.extend_from_slice(&header.to_le_bytes()[..3]);
            out.extend_from_slice(chunk);
        }
        // ISLAST 1, ISLASTEMPTY 1.
        out.push(0b11);
        out
    }
}

/// A gzip member of the head at the best level (as `site::compress_gzip`), sync-flushed to a byte
/// boundary and not ended, with what its trailer needs: the head's CRC-32 and length.
#[derive(Debug)]
struct OpenGzip {
    stream: Bytes,
    crc: crc32fast::Hasher,
    len: usize,
}

impl OpenGzip {
    fn new(head: &[u8]) -> OpenGzip {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(head).expect("writing to memory");
        // Z_SYNC_FLUSH: ends with an empty stored block, on a byte boundary.
        encoder.flush().expect("writing to memory");
        let mut crc = crc32fast::Hasher::new();
        crc.update(head);
        OpenGzip { stream: Bytes::copy_from_slice(encoder.get_ref()), crc, len: head.len() }
    }

    /// The whole member: the head, `tail` in stored blocks (the last one final), and the trailer.
    fn end_with(&self, tail: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.stream.len() + tail.len() + 16);
        out.extend_from_slice(&self.stream);
        let chunks: Vec<&[u8]> = if tail.is_empty() { vec![&[]] } else { tail.chunks(0xFFFF).collect() };
        for (n, chunk) in chunks.iter().enumerate() {
            // BFINAL on the last block; BTYPE 00 (stored); zero bits to the byte boundary.
            out.push(u8::from(n + 1 == chunks.len()));
            let len = chunk.len() as u16;
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&(!len).to_le_bytes());
            out.extend_from_slice(chunk);
        }
        let mut crc = self.crc.clone();
        crc.update(tail);
        out.extend_from_slice(&crc.finalize().to_le_bytes());
        out.extend_from_slice(&((self.len + tail.len()) as u32).to_le_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    fn page() -> Vec<u8> {
        let body: String = (0..400).map(|n| format!("<p>Рядок {n} сторінки</p>\n")).collect();
        format!("<!doctype html><html><body>{body}</body>\n</html>\n").into_bytes()
    }

    #[test]
    fn every_encoding_decodes_to_the_page_with_its_slot_filled() {
        let html = page();
        let slot = html.windows(7).rposition(|w| w == b"</body>").unwrap();
        let open = OpenEnd::new(Bytes::from(html.clone()), slot);
        for filled in ["<input type=\"hidden\" name=\"a\" value=\"1.b.c\">", "", &"ї".repeat(40_000)] {
            let expected = [&html[..slot], filled.as_bytes(), &html[slot..]].concat();
            assert_eq!(open.identity(filled), expected);

            let mut decoded = Vec::new();
            brotli::BrotliDecompress(&mut &open.brotli(filled)[..], &mut decoded).unwrap();
            assert_eq!(decoded, expected);

            let mut decoded = Vec::new();
            flate2::read::GzDecoder::new(&open.gzip(filled)[..]).read_to_end(&mut decoded).unwrap();
            assert_eq!(decoded, expected);
        }
    }

    #[test]
    fn the_head_is_compressed_as_well_as_the_whole_page_would_be() {
        let html = page();
        let slot = html.windows(7).rposition(|w| w == b"</body>").unwrap();
        let open = OpenEnd::new(Bytes::from(html.clone()), slot);
        let filled = "<input type=\"hidden\" name=\"a\" value=\"1.b.c\">";
        let whole = [&html[..slot], filled.as_bytes(), &html[slot..]].concat();
        let best = crate::site::compress_brotli(&whole).len();
        // The stored end (some 60 bytes here) and a few bytes of framing; nothing recompressed.
        assert!(open.brotli(filled).len() <= best + 80, "{} against {best}", open.brotli(filled).len());
        let best = crate::site::compress_gzip(&whole).len();
        assert!(open.gzip(filled).len() <= best + 80, "{} against {best}", open.gzip(filled).len());
    }
}
