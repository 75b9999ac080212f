import { parse, type Parser } from 'csv-parse';
import type { BlobStore } from '@corridor/blob-store';

// Reading an uploaded CSV from the blob store as a stream of records: memory stays bounded by one
// record (max_record_size) and the parser's buffer, whatever the file's length.

/** A record longer than this is a broken file (an unclosed quote swallowing the rest), not a customer. */
export const MAX_RECORD_BYTES = 64 * 1024;

const parser = (): Parser => parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES });

/** The file's records, header first, each an array of fields; the blob stream is closed when the caller stops early. */
export async function* csvRecords(blobs: BlobStore, key: string): AsyncGenerator<string[]> {
  const body = await blobs.get(key);
  const records = parser();
  const source = body as NodeJS.ReadableStream & { destroy?: (error?: Error) => void };
  source.on('error', (error: Error) => records.destroy(error));
  source.pipe(records);
  try {
    for await (const record of records) yield record as string[];
  } finally {
    source.unpipe?.(records);
    source.destroy?.();
    records.destroy();
  }
}

/** The first record (the header), or null for a file without one. */
export const readHeader = async (blobs: BlobStore, key: string): Promise<string[] | null> => {
  for await (const record of csvRecords(blobs, key)) return record.map((name) => name.trim());
  return null;
};

/** Data rows of the file (records after the header); reads it through once, or stops at `atMost` + 1 rows. */
export const countRows = async (blobs: BlobStore, key: string, atMost = Number.MAX_SAFE_INTEGER): Promise<number> => {
  let records = 0;
  for await (const _record of csvRecords(blobs, key)) {
    records += 1;
    if (records - 1 > atMost) break;
  }
  return Math.max(0, records - 1);
};
