import { DomainError } from '@corridor/contracts';
import { checkWebhookEndpoint, type ResolveHost } from './webhook-target';

const resolvingTo =
  (...addresses: string[]): ResolveHost =>
  async () =>
    addresses;
const notResolving: ResolveHost = async (hostname) => {
  throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
};

const refusal = async (endpoint: string, resolve: ResolveHost): Promise<DomainError> => {
  const error = await checkWebhookEndpoint(endpoint, resolve).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DomainError)) throw new Error(`${endpoint} was not refused`);
  return error;
};

describe('checkWebhookEndpoint', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', 'webhookEndpoint 127.0.0.1 is a loopback address (127.0.0.0/8)'],
    ['http://[::1]/hook', 'webhookEndpoint [::1] is the IPv6 loopback address (::1)'],
    ['http://169.254.169.254/latest', 'webhookEndpoint 169.254.169.254 is the cloud metadata address'],
    ['https://10.1.2.3/hook', 'webhookEndpoint 10.1.2.3 is a private address (10.0.0.0/8)'],
    ['http://[::ffff:192.168.0.10]/hook', 'is a private address (192.168.0.0/16)'],
    ['http://0x7f.1/hook', 'webhookEndpoint 127.0.0.1 is a loopback address'],
    ['http://2130706433/hook', 'webhookEndpoint 127.0.0.1 is a loopback address'],
    ['http://0177.0.0.1/hook', 'webhookEndpoint 127.0.0.1 is a loopback address'],
    ['http://[fd00:ec2::254]/latest', 'webhookEndpoint [fd00:ec2::254] is the cloud metadata address (IPv6)'],
    ['http://[::ffff:a9fe:a9fe]/latest', 'webhookEndpoint [::ffff:a9fe:a9fe] is the cloud metadata address'],
  ])('refuses the literal %s without resolving anything', async (endpoint, message) => {
    const error = await refusal(endpoint, notResolving);
    expect(error.toBody()).toEqual({
      status: 400,
      code: 'INVALID_INPUT',
      message: expect.stringContaining(message),
      details: { field: 'webhookEndpoint' },
    });
    expect(error.message).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
  });

  it('refuses a metadata name that resolves to the metadata address', async () => {
    expect((await refusal('http://metadata.google.internal/computeMetadata/v1', resolvingTo('169.254.169.254'))).message).toMatch(
      /^webhookEndpoint metadata\.google\.internal resolves to 169\.254\.169\.254, which is the cloud metadata address;/,
    );
  });

  it('refuses a name when any address it resolves to is special-use', async () => {
    const error = await refusal('https://hooks.example.com/corridor', resolvingTo('93.184.215.14', 'fd00::5'));
    expect(error.message).toMatch(/^webhookEndpoint hooks\.example\.com resolves to fd00::5, which is an IPv6 unique-local address/);
    expect(error.message).toContain('; webhooks go only to public internet addresses.');
  });

  it('refuses a name that does not resolve, or resolves to nothing, saying what to do', async () => {
    expect((await refusal('https://nowhere.invalid/hook', notResolving)).message).toBe(
      'webhookEndpoint host nowhere.invalid does not resolve (getaddrinfo ENOTFOUND nowhere.invalid), so Corridor cannot tell whether ' +
        'it is a public address. Configure a host name that resolves in public DNS, then set webhookEndpoint again.',
    );
    expect((await refusal('https://empty.example/hook', resolvingTo())).message).toContain('resolves to no address');
  });

  it('accepts public literals and names that resolve only to public addresses', async () => {
    await expect(checkWebhookEndpoint('https://93.184.215.14/hook', notResolving)).resolves.toBeUndefined();
    await expect(checkWebhookEndpoint('https://[2606:4700:4700::1111]/hook', notResolving)).resolves.toBeUndefined();
    const publicOnly = resolvingTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c');
    await expect(checkWebhookEndpoint('https://hooks.example.com/corridor', publicOnly)).resolves.toBeUndefined();
  });
});
