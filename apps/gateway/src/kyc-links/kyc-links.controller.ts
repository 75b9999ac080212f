import { Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiExcludeController, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsUrl, MaxLength } from 'class-validator';
import {
  type CompleteKycLinkData,
  type CreateKycLinkData,
  DomainError,
  invalidInput,
  type KycLinkCompleted,
  type KycLinkIssued,
  type KycLinkPage,
  type KycLinkWire,
  type RequestContext,
  subjects,
} from '@corridor/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PublicRoute, RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { API_VERSION, GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { correlationIdOf } from '../http/request-id';
import { IdPipe, Optional, OptionalBody } from '../http/validation';
import { ServiceCall } from '../service-call';
import { messagePage, openPage, redirectTarget } from './kyc-link-page';
import { ReferenceOperation } from '../http/openapi/operation';

const customerId = new IdPipe('Customer', 'USER_NOT_FOUND', 'Customer');
/** Base64url of 32 random bytes; anything else cannot be a link's token. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class KycLinkCreateRequest {
  @ApiPropertyOptional({ format: 'uri', example: 'https://app.example.com/onboarding/completed' })
  @Optional()
  @IsUrl(
    { protocols: ['https', 'http'], require_protocol: true, require_tld: false },
    { message: 'redirectUri must be an absolute https:// (or http:// for local development) URI' },
  )
  @MaxLength(2048)
  redirectUri?: string;
}

/** POST /customers/{id}/kyc-link (the reference's createCustomerKycLink). */
@ApiTags('KYC/KYB Verifications')
@ApiBasicAuth()
@Controller('customers')
export class KycLinksController {
  constructor(
    private readonly call: ServiceCall,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @ReferenceOperation('createCustomerKycLink')
  @Post(':customerId/kyc-link')
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  @ApiBody({ type: KycLinkCreateRequest, required: false })
  async create(
    @Param('customerId', customerId) id: string,
    @OptionalBody(KycLinkCreateRequest) body: KycLinkCreateRequest,
    @Req() request: FastifyRequest,
    @Ctx() context: RequestContext,
  ): Promise<KycLinkWire> {
    const data: CreateKycLinkData = { customerId: id, ...(body.redirectUri ? { redirectUri: body.redirectUri } : {}) };
    const issued = await this.call.request<KycLinkIssued>(subjects.customers.kycLink.create, data, context);
    const base = this.config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
    return {
      kycUrl: `${base}/${API_VERSION}/kyc/${issued.token}`,
      expiresAt: issued.expiresAt,
      provider: issued.provider,
      token: issued.token,
    };
  }
}

const statusOf = (error: unknown): number => (error instanceof DomainError ? error.status : 500);

/**
 * The hosted page itself, opened by the customer's browser: no API token, the link's token is
 * the credential. Answers HTML, including for a used, expired or unknown link.
 */
@ApiExcludeController()
@Controller('kyc')
export class KycLinkPageController {
  constructor(private readonly call: ServiceCall) {}

  @Get(':token')
  @PublicRoute()
  async show(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      const page = await this.call.request<KycLinkPage>(
        subjects.customers.kycLink.page,
        { token: requireToken(token) },
        pageContext(request),
      );
      if (page.state === 'OPEN') return html(reply, 200, openPage(page, `/${API_VERSION}/kyc/${token}`));
      return html(
        reply,
        409,
        page.state === 'USED'
          ? messagePage('Link already used', 'This verification link was already used; a link works once. Ask for a new one.')
          : messagePage('Link expired', 'This verification link has expired. Ask for a new one.'),
      );
    } catch (error) {
      return html(reply, statusOf(error), failurePage(error));
    }
  }

  @Post(':token')
  @PublicRoute()
  async decide(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (mediaType !== 'application/x-www-form-urlencoded')
        throw invalidInput('Send the page’s form: Content-Type must be application/x-www-form-urlencoded.', { field: 'Content-Type' });
      const decision = (request.body as Record<string, unknown> | undefined)?.['decision'];
      if (decision !== 'APPROVE' && decision !== 'REJECT') throw invalidInput('decision must be APPROVE or REJECT.', { field: 'decision' });
      const data: CompleteKycLinkData = { token: requireToken(token), decision };
      const done = await this.call.request<KycLinkCompleted>(subjects.customers.kycLink.complete, data, pageContext(request));
      if (done.redirectUri) {
        void reply.status(303).header('location', redirectTarget(done.redirectUri, done.kycStatus)).header('cache-control', 'no-store');
        return void reply.send();
      }
      return html(
        reply,
        200,
        messagePage(decision === 'APPROVE' ? 'Verification approved' : 'Verification rejected', 'You can close this page.'),
      );
    } catch (error) {
      return html(reply, statusOf(error), failurePage(error));
    }
  }
}

const requireToken = (token: string): string => {
  if (!TOKEN.test(token))
    throw new DomainError('REFERENCE_NOT_FOUND', 'not_found', 'This KYC link does not exist. Ask the platform for a new one.');
  return token;
};

const pageContext = (request: FastifyRequest): RequestContext => ({
  platformId: '',
  actor: { kind: 'system', name: 'kyc-link-page' },
  requestId: request.id,
  correlationId: correlationIdOf(request.headers, request.id),
});

const failurePage = (error: unknown): string => {
  if (!(error instanceof DomainError))
    return messagePage('Something went wrong', 'The verification could not be completed; try again in a moment.');
  if (error.status === 404) return messagePage('Link not found', error.message);
  if (error.status === 409) return messagePage('Link cannot be used', error.message);
  return messagePage('Request refused', error.message);
};

const html = (reply: FastifyReply, status: number, body: string): void => {
  void reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .send(body);
};
