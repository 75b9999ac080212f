import { randomUUID } from 'node:crypto';
import type { MultipartFile } from '@fastify/multipart';
import { type BlobStore, BlobTooLargeError, type StoredBlob } from '@corridor/blob-store';
import {
  type DocumentContentType,
  type DocumentMetadata,
  documentSides,
  documentTypes,
  DomainError,
  invalidInput,
  isIdOf,
  type RequestContext,
  requestFingerprint,
  type StoredDocumentFile,
} from '@corridor/contracts';
import type { FastifyRequest } from 'fastify';
import { createLogger } from '@corridor/messaging';

// Reads a document upload (multipart/form-data: the file in `file`, metadata in the other
// fields) without ever holding the file in memory: the file part is streamed into the blob store
// as it arrives, whatever order the parts come in, and the fields are checked once all are read.

/** The reference's limit for one document. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
const MAX_FILE_NAME = 255;
const COUNTRY = /^[A-Z]{2}$/;

/** The file types a document may be, recognised by their first bytes whatever the file is called. */
export const sniffDocumentType = (head: Buffer): DocumentContentType | undefined => {
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  return undefined;
};

export type DocumentUpload = { fields: Record<string, string>; file: StoredDocumentFile };

const tooLarge = () =>
  new DomainError(
    'PAYLOAD_TOO_LARGE',
    'payload_too_large',
    `The file is larger than ${MAX_DOCUMENT_BYTES} bytes (10 MB), the most a document may be.`,
    {
      field: 'file',
      maxBytes: MAX_DOCUMENT_BYTES,
    },
  );

/**
 * A failed put: the client's doing when the body broke off or ran over (400/413), the store's
 * otherwise — then 503, since nothing about the request was wrong.
 */
const storeFailure = (error: unknown): unknown => {
  if (error instanceof BlobTooLargeError) return tooLarge();
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('FST_')) return error;
  if (/terminated early|aborted|premature close/i.test((error as Error).message ?? ''))
    return invalidInput('The upload ended before the file was complete; send it again.', { field: 'file' });
  return new DomainError(
    'SERVICE_UNAVAILABLE',
    'unavailable',
    'The document store could not take the file just now; retry the upload later.',
  );
};

/** Multipart parser failures (limits, a malformed body) as the client's error, never a 500. */
const multipartError = (error: unknown): DomainError => {
  if (error instanceof DomainError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (code === 'FST_FILES_LIMIT') return invalidInput('Send exactly one file, in the field named file.', { field: 'file' });
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
    return invalidInput('The form has more fields than a document upload takes.');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE')
    return invalidInput('Content-Type must be multipart/form-data.', { field: 'Content-Type' });
  return invalidInput(`The multipart body could not be read: ${(error as Error).message ?? String(error)}.`);
};

const cleanFileName = (name: string | undefined): string => {
  // Only a name to show back: no path, no control characters.
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = [...base]
    .filter((character) => character.charCodeAt(0) > 0x1f && character.charCodeAt(0) !== 0x7f)
    .join('')
    .trim()
    .slice(0, MAX_FILE_NAME);
  return cleaned || 'document';
};

/**
 * Streams the one file part into the store under a fresh key and collects the other fields.
 * Whatever goes wrong after the file was stored, the stored file is removed before the error leaves.
 */
export const receiveDocument = async (request: FastifyRequest, blobs: BlobStore): Promise<DocumentUpload> => {
  const fields: Record<string, string> = {};
  let stored: (StoredBlob & { fileName: string }) | undefined;
  try {
    let problem: DomainError | undefined;
    for await (const part of request.parts({ limits: { fileSize: MAX_DOCUMENT_BYTES } })) {
      if (part.type === 'field') {
        const value = String(part.value);
        // PostgreSQL text cannot hold NUL; refused here rather than failing in a service.
        if (value.includes('\u0000'))
          problem ??= invalidInput(`${part.fieldname} must not contain NUL characters.`, { field: part.fieldname });
        if (part.fieldname in fields) problem ??= invalidInput(`${part.fieldname} was sent more than once.`, { field: part.fieldname });
        fields[part.fieldname] = value;
        continue;
      }
      const file = part as MultipartFile;
      if (file.fieldname !== 'file' || stored) {
        problem ??= invalidInput(`The file must be sent in the field named file, once; got a file in "${file.fieldname}".`, {
          field: 'file',
        });
        await drain(file);
        continue;
      }
      // The store's own ceiling is a byte above the parser's, so an oversized file is always
      // truncated by the parser (which drains the rest) rather than torn down mid-request.
      const blob = await blobs.put(`documents/${randomUUID()}`, file.file, { maxBytes: MAX_DOCUMENT_BYTES + 1 }).catch((error: unknown) => {
        throw storeFailure(error);
      });
      stored = { ...blob, fileName: cleanFileName(file.filename) };
      if (file.file.truncated) problem ??= tooLarge();
    }
    if (problem) throw problem;
    if (!stored)
      throw invalidInput('A document needs its file: send it as multipart/form-data in the field named file.', { field: 'file' });
    if (stored.size === 0) throw invalidInput('The file is empty.', { field: 'file' });
    const contentType = sniffDocumentType(stored.head);
    if (!contentType) {
      throw invalidInput(
        'The file must be a PDF, JPEG or PNG; its content is none of these (the type is read from the content, not the file name).',
        {
          field: 'file',
          acceptedTypes: ['application/pdf', 'image/jpeg', 'image/png'],
        },
      );
    }
    return { fields, file: { blobKey: stored.key, fileName: stored.fileName, size: stored.size, sha256: stored.sha256, contentType } };
  } catch (error) {
    const key = stored?.key;
    if (key) await blobs.delete(key).catch((deleteError: unknown) => orphaned(key, deleteError));
    throw multipartError(error);
  }
};

const drain = async (file: MultipartFile): Promise<void> => {
  for await (const _chunk of file.file) {
    // discarded
  }
};

/**
 * After the command that was to record the file failed: a refusal (4xx) recorded nothing, so the
 * file goes. A timeout or an unavailable service may still record it later, so the file is kept —
 * an orphan at worst (decision 0011), never a document whose file is gone.
 */
export const discardUpload = async (blobs: BlobStore, upload: DocumentUpload, error: unknown): Promise<void> => {
  if (!(error instanceof DomainError) || error.status >= 500) return;
  await blobs.delete(upload.file.blobKey).catch((deleteError: unknown) => orphaned(upload.file.blobKey, deleteError));
};

/**
 * The request's context with a fingerprint of the upload itself. The idempotency interceptor runs
 * before the form is read, so its fingerprint of a multipart request knows only the path; the
 * service compares this one (the fields and the file's digest) when a key is used again.
 */
export const withUploadFingerprint = (context: RequestContext, request: FastifyRequest, upload: DocumentUpload): RequestContext =>
  context.idempotencyKey === undefined
    ? context
    : {
        ...context,
        requestFingerprint: requestFingerprint(request.method, request.url, {
          ...upload.fields,
          file: { sha256: upload.file.sha256, fileName: upload.file.fileName },
        }),
      };

const logger = createLogger('gateway:documents');
/** A refused upload whose file could not be deleted: an orphan in the blob store, never a document without its file. */
const orphaned = (key: string, error: unknown): void =>
  logger.warn({ err: error, blobKey: key }, 'Could not delete the file of a refused upload; it stays in the blob store.');

const text = (fields: Record<string, string>, name: string, max: number): string | undefined => {
  const value = fields[name];
  if (value === undefined) return undefined;
  if (value.trim().length === 0 || value.length > max) throw invalidInput(`${name} must be 1 to ${max} characters.`, { field: name });
  return value;
};

/** The metadata fields of an upload or replacement; anything else in the form is refused by name. */
export const documentMetadataOf = (fields: Record<string, string>, allowed: readonly string[]): DocumentMetadata => {
  const known = new Set(['documentType', 'side', 'country', 'documentNumber', 'issuingAuthority', ...allowed]);
  const unknown = Object.keys(fields).filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw invalidInput(`Unknown form field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}.`, {
      field: unknown[0],
      unknownFields: unknown,
    });
  const { documentType, side, country } = fields;
  if (documentType === undefined) throw invalidInput('documentType is required.', { field: 'documentType' });
  if (!(documentTypes as readonly string[]).includes(documentType)) {
    throw invalidInput(`documentType must be one of ${documentTypes.join(', ')}.`, { field: 'documentType' });
  }
  if (country === undefined)
    throw invalidInput('country is required: the ISO 3166-1 alpha-2 code of the issuing country, such as US.', { field: 'country' });
  if (!COUNTRY.test(country)) throw invalidInput('country must be an ISO 3166-1 alpha-2 country code such as US.', { field: 'country' });
  if (side !== undefined && !(documentSides as readonly string[]).includes(side))
    throw invalidInput(`side must be one of ${documentSides.join(', ')}.`, { field: 'side' });
  const documentNumber = text(fields, 'documentNumber', 64);
  const issuingAuthority = text(fields, 'issuingAuthority', 255);
  return {
    documentType: documentType as DocumentMetadata['documentType'],
    country,
    ...(side !== undefined ? { side: side as DocumentMetadata['side'] & string } : {}),
    ...(documentNumber !== undefined ? { documentNumber } : {}),
    ...(issuingAuthority !== undefined ? { issuingAuthority } : {}),
  };
};

/** A holder is a customer or a beneficial owner; anything else cannot name one. */
export const documentHolderOf = (fields: Record<string, string>): string => {
  const holder = fields['documentHolder'];
  if (holder === undefined)
    throw invalidInput('documentHolder is required: the id of a customer or a beneficial owner.', { field: 'documentHolder' });
  if (!isIdOf('Customer', holder) && !isIdOf('BeneficialOwner', holder)) {
    throw invalidInput('documentHolder must be a Customer or BeneficialOwner id such as Customer:019542f5-b3e7-7d02-8000-000000000001.', {
      field: 'documentHolder',
    });
  }
  return holder;
};
