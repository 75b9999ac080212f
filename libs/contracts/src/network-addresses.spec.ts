import { ipLiteralOf, isPublicAddress, specialUseRangeOf } from './network-addresses';

// Every special-use block at its first and last address, the public neighbours just outside it,
// and the IPv6 spellings that reach an IPv4 address.
const refused: [address: string, cidr: string][] = [
  ['0.0.0.0', '0.0.0.0/8'],
  ['0.255.255.255', '0.0.0.0/8'],
  ['10.0.0.0', '10.0.0.0/8'],
  ['10.255.255.255', '10.0.0.0/8'],
  ['100.64.0.0', '100.64.0.0/10'],
  ['100.127.255.255', '100.64.0.0/10'],
  ['100.100.100.200', '100.64.0.0/10'],
  ['127.0.0.1', '127.0.0.0/8'],
  ['127.255.255.254', '127.0.0.0/8'],
  ['169.254.0.1', '169.254.0.0/16'],
  ['169.254.255.255', '169.254.0.0/16'],
  ['169.254.169.254', '169.254.169.254/32'],
  ['172.16.0.0', '172.16.0.0/12'],
  ['172.31.255.255', '172.16.0.0/12'],
  ['192.0.0.192', '192.0.0.0/24'],
  ['192.0.2.10', '192.0.2.0/24'],
  ['192.88.99.1', '192.88.99.0/24'],
  ['192.168.0.0', '192.168.0.0/16'],
  ['192.168.255.255', '192.168.0.0/16'],
  ['198.18.0.0', '198.18.0.0/15'],
  ['198.19.255.255', '198.18.0.0/15'],
  ['198.51.100.7', '198.51.100.0/24'],
  ['203.0.113.7', '203.0.113.0/24'],
  ['224.0.0.1', '224.0.0.0/4'],
  ['239.255.255.255', '224.0.0.0/4'],
  ['240.0.0.1', '240.0.0.0/4'],
  ['255.255.255.255', '240.0.0.0/4'],
  ['::', '::/128'],
  ['::1', '::1/128'],
  ['0:0:0:0:0:0:0:1', '::1/128'],
  ['[::1]', '::1/128'],
  ['::ffff:127.0.0.1', '127.0.0.0/8'],
  ['::ffff:7f00:1', '127.0.0.0/8'],
  ['::ffff:10.1.2.3', '10.0.0.0/8'],
  ['::ffff:169.254.169.254', '169.254.169.254/32'],
  ['::ffff:192.168.1.1', '192.168.0.0/16'],
  ['::ffff:0.0.0.0', '0.0.0.0/8'],
  ['64:ff9b::10.0.0.1', '10.0.0.0/8'],
  ['64:ff9b:1::1', '64:ff9b:1::/48'],
  ['::127.0.0.1', '::/96'],
  ['::8.8.8.8', '::/96'],
  ['2002:7f00:1::', '127.0.0.0/8'],
  ['2002:c0a8:101::1', '192.168.0.0/16'],
  ['fc00::1', 'fc00::/7'],
  ['fd00::1', 'fc00::/7'],
  ['fd00:ec2::254', 'fd00:ec2::254/128'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fc00::/7'],
  ['fe80::1', 'fe80::/10'],
  ['fe80::1%eth0', 'fe80::/10'],
  ['febf::1', 'fe80::/10'],
  ['fec0::1', 'fec0::/10'],
  ['ff02::1', 'ff00::/8'],
  ['100::1', '100::/64'],
  ['2001:db8::1', '2001:db8::/32'],
  ['2001::1', '2001::/32'],
  ['2001:2::1', '2001:2::/48'],
  ['2001:10::1', '2001:10::/28'],
  ['2001:20::1', '2001:20::/28'],
  ['3fff::1', '3fff::/20'],
  ['4000::1', 'outside 2000::/3'],
  ['1::1', 'outside 2000::/3'],
];

const accepted: string[] = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.1',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:82b::200e',
  '::ffff:8.8.8.8',
  '::ffff:0808:0808',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
  '2001:3::1',
  '[2606:4700:4700::1111]',
];

const notAddresses = [
  '',
  'localhost',
  'example.com',
  '127.0.0',
  '127.0.0.1.5',
  '256.1.1.1',
  '01.2.3.4',
  '::ffff:1.2.3',
  '1:2:3:4:5:6:7:8:9',
  '1::2::3',
  'gggg::1',
  '1:2:3:4:5:6:7::8',
];

describe('specialUseRangeOf', () => {
  it.each(refused)('refuses %s (%s)', (address, cidr) => {
    expect(specialUseRangeOf(address)?.cidr).toBe(cidr);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(accepted)('accepts %s', (address) => {
    expect(specialUseRangeOf(address)).toBeNull();
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(notAddresses)('refuses %j, which is not an IP address', (text) => {
    expect(specialUseRangeOf(text)).toEqual({ cidr: 'none', name: 'not an IP address' });
    expect(isPublicAddress(text)).toBe(false);
  });

  it('names the cloud metadata address, not only its link-local block', () => {
    expect(specialUseRangeOf('169.254.169.254')?.name).toBe('the cloud metadata address');
    expect(specialUseRangeOf('fd00:ec2::254')?.name).toBe('the cloud metadata address (IPv6)');
    expect(specialUseRangeOf('[fd00:ec2:0::254]')?.name).toBe('the cloud metadata address (IPv6)');
  });
});

describe('ipLiteralOf', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['example.com', undefined],
    ['localhost', undefined],
  ])('%s → %s', (hostname, literal) => {
    expect(ipLiteralOf(hostname)).toBe(literal);
  });
});
