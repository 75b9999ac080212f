// Given the permissions a token holds, when it grants permissions (to a token or an agent), then
// these are the ones it may not grant.
import { grantorPermissionsOf, grantRefused, isPermitted, ungrantableAgentPermissions, ungrantablePermissions } from './grants';

describe('isPermitted', () => {
  it('lets any token see, and needs the exact permission for anything else', () => {
    expect(isPermitted(['TRANSACT'], 'VIEW')).toBe(true);
    expect(isPermitted([], 'VIEW')).toBe(false);
    expect(isPermitted(['MANAGE'], 'TRANSACT')).toBe(false);
    expect(isPermitted(['VIEW', 'TRANSACT'], 'TRANSACT')).toBe(true);
  });
});

describe('ungrantablePermissions', () => {
  it('given MANAGE only, a TRANSACT token cannot be granted', () =>
    expect(ungrantablePermissions(['MANAGE'], ['VIEW', 'TRANSACT'])).toEqual(['TRANSACT']));
  it('given MANAGE only, a VIEW and MANAGE token can', () => expect(ungrantablePermissions(['MANAGE'], ['VIEW', 'MANAGE'])).toEqual([]));
  it('given every permission, anything can be granted', () =>
    expect(ungrantablePermissions(['VIEW', 'TRANSACT', 'MANAGE'], ['TRANSACT', 'MANAGE'])).toEqual([]));
  it('given VIEW only, MANAGE cannot be granted, named once', () =>
    expect(ungrantablePermissions(['VIEW'], ['MANAGE', 'MANAGE'])).toEqual(['MANAGE']));
});

describe('ungrantableAgentPermissions', () => {
  it('given MANAGE only, an agent that moves money needs TRANSACT', () => {
    expect(ungrantableAgentPermissions(['VIEW', 'MANAGE'], ['CREATE_TRANSFERS'])).toEqual(['TRANSACT']);
    expect(ungrantableAgentPermissions(['MANAGE'], ['CREATE_QUOTES', 'EXECUTE_QUOTES'])).toEqual(['TRANSACT']);
  });
  it('given MANAGE only, an agent that reads and manages external accounts is fine', () =>
    expect(ungrantableAgentPermissions(['MANAGE'], ['VIEW_TRANSACTIONS', 'MANAGE_EXTERNAL_ACCOUNTS'])).toEqual([]));
  it('given MANAGE and TRANSACT, any agent can be created', () =>
    expect(ungrantableAgentPermissions(['MANAGE', 'TRANSACT'], ['CREATE_TRANSFERS', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'])).toEqual(
      [],
    ));
});

describe('grantRefused', () => {
  it('is a 403 FORBIDDEN that names the missing permission', () =>
    expect(grantRefused(['TRANSACT'], 'create a token with TRANSACT').toBody()).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      details: { requiredPermission: 'TRANSACT', requiredPermissions: ['TRANSACT'] },
    }));
});

describe('grantorPermissionsOf', () => {
  it('reads the known permissions a message carries, and nothing from a message without them', () => {
    expect(grantorPermissionsOf({ grantorPermissions: ['MANAGE', 'ROOT', 'VIEW'] })).toEqual(['VIEW', 'MANAGE']);
    expect(grantorPermissionsOf({})).toEqual([]);
    expect(grantorPermissionsOf({ grantorPermissions: 'MANAGE' })).toEqual([]);
  });
});
