// Which IP addresses a platform's webhooks may be sent to, in every environment. A webhook target
// is chosen by the platform, so without this check Corridor would POST, signed, to whatever the
// URL names: its own loopback services, the private network it runs in, or the cloud metadata
// service (server-side request forgery). A sandbox token is as good a weapon as a production one:
// sandbox platforms run on the same network. Pure: parsing and range checks only; resolving names is the
// caller's I/O, and the caller checks every address a name resolves to.

export type SpecialUseRange = {
  /** The range in CIDR notation, e.g. 10.0.0.0/8. */
  readonly cidr: string;
  /** What the range is for, as a phrase that completes "<address> is …". */
  readonly name: string;
};

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or undefined. */
const parseIpv4 = (text: string): number | undefined => {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
};

type Ipv4Range = { readonly base: number; readonly bits: number; readonly name: string };

const ipv4Range = (cidr: string, name: string): Ipv4Range => {
  const [address, bits] = cidr.split('/');
  return { base: parseIpv4(address!)!, bits: Number(bits), name };
};

// RFC 6890 and its updates: every IPv4 block that is not globally reachable unicast.
const IPV4_SPECIAL_USE: readonly Ipv4Range[] = [
  ipv4Range('169.254.169.254/32', 'the cloud metadata address'),
  ipv4Range('0.0.0.0/8', '"this network" (0.0.0.0/8)'),
  ipv4Range('10.0.0.0/8', 'a private address (10.0.0.0/8)'),
  ipv4Range('100.64.0.0/10', 'a shared carrier-grade NAT address (100.64.0.0/10)'),
  ipv4Range('127.0.0.0/8', 'a loopback address (127.0.0.0/8)'),
  ipv4Range('169.254.0.0/16', 'a link-local address (169.254.0.0/16)'),
  ipv4Range('172.16.0.0/12', 'a private address (172.16.0.0/12)'),
  ipv4Range('192.0.0.0/24', 'an IETF protocol assignment (192.0.0.0/24)'),
  ipv4Range('192.0.2.0/24', 'a documentation address (192.0.2.0/24)'),
  ipv4Range('192.88.99.0/24', 'a 6to4 relay anycast address (192.88.99.0/24)'),
  ipv4Range('192.168.0.0/16', 'a private address (192.168.0.0/16)'),
  ipv4Range('198.18.0.0/15', 'a benchmarking address (198.18.0.0/15)'),
  ipv4Range('198.51.100.0/24', 'a documentation address (198.51.100.0/24)'),
  ipv4Range('203.0.113.0/24', 'a documentation address (203.0.113.0/24)'),
  ipv4Range('224.0.0.0/4', 'a multicast address (224.0.0.0/4)'),
  ipv4Range('240.0.0.0/4', 'a reserved address (240.0.0.0/4)'),
];

const inIpv4Range = (address: number, range: Ipv4Range): boolean => {
  const size = 2 ** (32 - range.bits);
  return Math.floor(address / size) === Math.floor(range.base / size);
};

const ipv4SpecialUse = (address: number): SpecialUseRange | null => {
  const range = IPV4_SPECIAL_USE.find((candidate) => inIpv4Range(address, candidate));
  return range ? { cidr: `${formatIpv4(range.base)}/${range.bits}`, name: range.name } : null;
};

const formatIpv4 = (address: number): string => [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256).join('.');

/** An IPv6 address (optionally with an embedded IPv4 tail and a %zone) as eight 16-bit groups, or undefined. */
const parseIpv6 = (text: string): number[] | undefined => {
  const address = text.split('%')[0] ?? '';
  if (address.length === 0 || address.length > 45 || !/^[0-9a-fA-F:.]+$/.test(address)) return undefined;
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string): number[] | undefined => {
    if (half === '') return [];
    const groups: number[] = [];
    const parts = half.split(':');
    for (const [index, part] of parts.entries()) {
      if (part.includes('.')) {
        // An embedded IPv4 address is the last part only.
        const ipv4 = index === parts.length - 1 ? parseIpv4(part) : undefined;
        if (ipv4 === undefined) return undefined;
        groups.push(Math.floor(ipv4 / 65_536), ipv4 % 65_536);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return undefined;
        groups.push(parseInt(part, 16));
      }
    }
    return groups;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  // "::" stands for at least one group of zeros.
  const zeros = 8 - head.length - tail.length;
  if (zeros < 1) return undefined;
  return [...head, ...Array<number>(zeros).fill(0), ...tail];
};

const ipv4Of = (high: number, low: number): number => high * 65_536 + low;

const ipv6Range = (cidr: string, name: string): SpecialUseRange => ({ cidr, name });

/** Whether the first `bits` bits of the groups equal those of `prefix` (given as groups). */
const hasPrefix = (groups: number[], prefix: number[], bits: number): boolean => {
  for (let index = 0; index * 16 < bits; index += 1) {
    const take = Math.min(16, bits - index * 16);
    const shift = 16 - take;
    if (groups[index]! >> shift !== (prefix[index] ?? 0) >> shift) return false;
  }
  return true;
};

// Ranges inside global unicast (2000::/3) that are not reachable, or that embed an IPv4 address
// checked on its own (6to4); everything outside 2000::/3 is refused unless it embeds IPv4.
const IPV6_SPECIAL_USE_IN_GLOBAL: readonly { prefix: number[]; bits: number; range: SpecialUseRange }[] = [
  { prefix: [0x2001, 0x0000], bits: 32, range: ipv6Range('2001::/32', 'a Teredo tunnelling address (2001::/32)') },
  { prefix: [0x2001, 0x0002, 0x0000], bits: 48, range: ipv6Range('2001:2::/48', 'a benchmarking address (2001:2::/48)') },
  { prefix: [0x2001, 0x0010], bits: 28, range: ipv6Range('2001:10::/28', 'an ORCHID address (2001:10::/28)') },
  { prefix: [0x2001, 0x0020], bits: 28, range: ipv6Range('2001:20::/28', 'an ORCHIDv2 address (2001:20::/28)') },
  { prefix: [0x2001, 0x0db8], bits: 32, range: ipv6Range('2001:db8::/32', 'a documentation address (2001:db8::/32)') },
  { prefix: [0x3fff, 0x0000], bits: 20, range: ipv6Range('3fff::/20', 'a documentation address (3fff::/20)') },
];

const ipv6SpecialUse = (groups: number[]): SpecialUseRange | null => {
  const [first] = groups;
  const allZeroBefore = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (allZeroBefore(8)) return ipv6Range('::/128', 'the unspecified address (::)');
  if (allZeroBefore(7) && groups[7] === 1) return ipv6Range('::1/128', 'the IPv6 loopback address (::1)');
  // ::ffff:a.b.c.d reaches the IPv4 address itself; NAT64's well-known prefix translates to it.
  const embedded = (allZeroBefore(5) && groups[5] === 0xffff) || hasPrefix(groups, [0x0064, 0xff9b, 0, 0, 0, 0], 96);
  if (embedded) return ipv4SpecialUse(ipv4Of(groups[6]!, groups[7]!));
  // 6to4 (2002::/16) carries its IPv4 address in bits 16–48.
  if (first === 0x2002) return ipv4SpecialUse(ipv4Of(groups[1]!, groups[2]!));
  if (first! >> 13 === 0b001) {
    return IPV6_SPECIAL_USE_IN_GLOBAL.find((candidate) => hasPrefix(groups, candidate.prefix, candidate.bits))?.range ?? null;
  }
  if (allZeroBefore(6)) return ipv6Range('::/96', 'an IPv4-compatible IPv6 address (::/96, deprecated)');
  // The instance metadata service over IPv6 (AWS Nitro), inside fc00::/7 but worth its own name.
  const metadata = [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254];
  if (groups.every((group, index) => group === metadata[index])) return ipv6Range('fd00:ec2::254/128', 'the cloud metadata address (IPv6)');
  if (first! >> 9 === 0b1111110) return ipv6Range('fc00::/7', 'an IPv6 unique-local address (fc00::/7)');
  if (first! >> 6 === 0b1111111010) return ipv6Range('fe80::/10', 'an IPv6 link-local address (fe80::/10)');
  if (first! >> 6 === 0b1111111011) return ipv6Range('fec0::/10', 'an IPv6 site-local address (fec0::/10, deprecated)');
  if (first! >> 8 === 0xff) return ipv6Range('ff00::/8', 'an IPv6 multicast address (ff00::/8)');
  if (hasPrefix(groups, [0x0064, 0xff9b, 0x0001], 48)) return ipv6Range('64:ff9b:1::/48', 'a local-use NAT64 address (64:ff9b:1::/48)');
  if (hasPrefix(groups, [0x0100, 0, 0, 0], 64)) return ipv6Range('100::/64', 'a discard-only address (100::/64)');
  return ipv6Range('outside 2000::/3', 'not a global unicast IPv6 address (outside 2000::/3)');
};

/**
 * The special-use range an IP address (IPv4 dotted quad, or IPv6 with or without brackets) falls
 * in, or null when it is a public, globally reachable unicast address. Text that is not an IP
 * address is refused too, so a caller can never mistake "could not tell" for "public".
 */
export const specialUseRangeOf = (ip: string): SpecialUseRange | null => {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const ipv4 = parseIpv4(text);
  if (ipv4 !== undefined) return ipv4SpecialUse(ipv4);
  const ipv6 = text.includes(':') ? parseIpv6(text) : undefined;
  if (ipv6 !== undefined) return ipv6SpecialUse(ipv6);
  return { cidr: 'none', name: 'not an IP address' };
};

/** Whether a webhook may be sent to this address without the deployment's opt-in (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
export const isPublicAddress = (ip: string): boolean => specialUseRangeOf(ip) === null;

/** A host of a URL (WHATWG `URL.hostname`) that is an IP literal rather than a name: IPv6 comes in brackets. */
export const ipLiteralOf = (hostname: string): string | undefined => {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return parseIpv4(hostname) !== undefined ? hostname : undefined;
};

/**
 * The deployment setting that lets every platform's webhooks go to private and other special-use
 * addresses: for a development stack, and for self-hosters whose receivers live on their own
 * network. Read by the platform service (PATCH /config) and the webhooks service (delivery and the
 * sandbox test webhook). The name is kept from when it applied to production platforms only: it
 * says what it allows, and deployments that set it keep working.
 */
export const ALLOW_PRIVATE_WEBHOOK_TARGETS_ENV = 'WEBHOOK_ALLOW_PRIVATE_TARGETS';

export const parseAllowPrivateWebhookTargets = (env: Readonly<Record<string, string | undefined>>): boolean => {
  const value = env[ALLOW_PRIVATE_WEBHOOK_TARGETS_ENV];
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new Error(`${ALLOW_PRIVATE_WEBHOOK_TARGETS_ENV} must be true or false, got "${value}".`);
};

export type RefusedAddress = { address: string; range: SpecialUseRange };

/** The first address a webhook may not go to, or undefined when all are public. */
export const refusedWebhookAddressOf = (addresses: readonly string[]): RefusedAddress | undefined => {
  for (const address of addresses) {
    const range = specialUseRangeOf(address);
    if (range) return { address, range };
  }
  return undefined;
};

/** Why a webhook host is refused, in words a platform's engineer can act on. */
export const webhookTargetRefusalMessage = (host: string, refused: RefusedAddress): string => {
  const where = ipLiteralOf(host) !== undefined ? `${host} is` : `${host} resolves to ${refused.address}, which is`;
  return (
    `webhookEndpoint ${where} ${refused.range.name}; webhooks go only to public internet addresses. ` +
    `Use a URL whose host resolves to a public address, or, if you run Corridor yourself and your receiver is on your private network, ` +
    `set ${ALLOW_PRIVATE_WEBHOOK_TARGETS_ENV}=true on the platform and webhooks services.`
  );
};
