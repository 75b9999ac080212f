// The file type of a document comes from its first bytes, never from its name or declared type.
import { documentHolderOf, documentMetadataOf, sniffDocumentType } from './document-upload';

describe('sniffDocumentType', () => {
  it('recognises PDF, PNG and JPEG by their signatures', () => {
    expect(sniffDocumentType(Buffer.from('%PDF-1.7\n...'))).toBe('application/pdf');
    expect(sniffDocumentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]))).toBe('image/png');
    expect(sniffDocumentType(Buffer.from([0xff, 0xd8, 0xff, 0xdb, 0]))).toBe('image/jpeg');
  });

  it('refuses text, a GIF, a truncated PNG signature and an empty head', () => {
    expect(sniffDocumentType(Buffer.from('PNG but really text'))).toBeUndefined();
    expect(sniffDocumentType(Buffer.from('GIF89a......'))).toBeUndefined();
    expect(sniffDocumentType(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBeUndefined();
    expect(sniffDocumentType(Buffer.alloc(0))).toBeUndefined();
    expect(sniffDocumentType(Buffer.from('%PDF'))).toBeUndefined();
  });
});

describe('documentMetadataOf', () => {
  it('takes the reference fields and leaves out the absent ones', () => {
    expect(documentMetadataOf({ documentType: 'PASSPORT', country: 'FR', side: 'BACK', documentNumber: 'X1' }, [])).toEqual({
      documentType: 'PASSPORT',
      country: 'FR',
      side: 'BACK',
      documentNumber: 'X1',
    });
  });

  it.each<[Record<string, string>, string]>([
    [{ country: 'US' }, 'documentType'],
    [{ documentType: 'SELFIE_VIDEO', country: 'US' }, 'documentType'],
    [{ documentType: 'PASSPORT' }, 'country'],
    [{ documentType: 'PASSPORT', country: 'usa' }, 'country'],
    [{ documentType: 'PASSPORT', country: 'US', side: 'LEFT' }, 'side'],
    [{ documentType: 'PASSPORT', country: 'US', documentNumber: ' ' }, 'documentNumber'],
    [{ documentType: 'PASSPORT', country: 'US', issuingAuthority: 'x'.repeat(256) }, 'issuingAuthority'],
    [{ documentType: 'PASSPORT', country: 'US', colour: 'red' }, 'colour'],
  ])('refuses %j naming %s', (fields, field) => {
    expect(() => documentMetadataOf(fields, [])).toThrow(
      expect.objectContaining({ status: 400, details: expect.objectContaining({ field }) }),
    );
  });

  it('refuses documentHolder on a replacement, where it cannot change', () => {
    expect(() => documentMetadataOf({ documentType: 'PASSPORT', country: 'US', documentHolder: 'Customer:x' }, [])).toThrow(
      /documentHolder/,
    );
  });
});

describe('documentHolderOf', () => {
  it('takes a Customer or BeneficialOwner id and refuses anything else', () => {
    const customer = 'Customer:0196f1a0-0000-7000-8000-000000000001';
    expect(documentHolderOf({ documentHolder: customer })).toBe(customer);
    expect(documentHolderOf({ documentHolder: 'BeneficialOwner:0196f1a0-0000-7000-8000-000000000001' })).toBe(
      'BeneficialOwner:0196f1a0-0000-7000-8000-000000000001',
    );
    expect(() => documentHolderOf({})).toThrow(/documentHolder is required/);
    expect(() => documentHolderOf({ documentHolder: 'Platform:0196f1a0-0000-7000-8000-000000000001' })).toThrow(
      /Customer or BeneficialOwner/,
    );
  });
});
