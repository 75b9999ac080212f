import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type AuthMethodWire,
  type AuthSessionWire,
  type RequestContext,
  type SandboxMailWire,
  type SignedReply,
  subjects,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { SandboxOnlyGuard } from '../auth/sandbox-only';
import { DiscriminatedBodyPipe, IdPipe, OptionalBody } from '../http/validation';
import { ServiceCall } from '../service-call';
import {
  AccountIdQuery,
  AuthCredentialChallengeRequest,
  AuthSessionRefreshRequest,
  credentialCreateVariants,
  credentialVerifyVariants,
} from './auth-credentials.dto';
import { answer, walletHeaders } from './signed-reply';
import { ExtensionOperation, ReferenceOperation } from '../http/openapi/operation';

const credentialId = new IdPipe('AuthMethod', 'REFERENCE_NOT_FOUND', 'Credential');
/**
 * The calls that may send an OTP email wait longer than REQUEST_TIMEOUT_MS: accounts gives its SMTP
 * relay up to SMTP_TIMEOUT_MS (10 s by default), and a gateway that gave up first would answer 503
 * while the mail still left.
 */
const MAIL_SENDING_TIMEOUT_MS = 20_000;
const sessionId = new IdPipe('Session', 'REFERENCE_NOT_FOUND', 'Session');

/** /auth/credentials* and /auth/sessions*: Embedded Wallet auth, answered by the accounts service. */
@ApiTags('Embedded Wallet Auth')
@ApiBasicAuth()
@Controller()
export class AuthCredentialsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('listAuthCredentials')
  @Get('auth/credentials')
  @RequiresPermission('VIEW')
  list(@Query() query: AccountIdQuery, @Ctx() context: RequestContext): Promise<{ data: AuthMethodWire[] }> {
    return this.call.request(subjects.accounts.embeddedWallet.listCredentials, { accountId: query.accountId }, context);
  }

  @ReferenceOperation('createAuthCredential', { signature: 'signedRetry' })
  @Post('auth/credentials')
  @RequiresPermission('MANAGE')
  async create(
    @Body(new DiscriminatedBodyPipe('type', credentialCreateVariants)) body: object,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    const data = { body: { ...body }, ...walletHeaders(request) };
    const subject = subjects.accounts.embeddedWallet.createCredential;
    const result = await this.call.request<SignedReply<unknown>>(subject, data, context, MAIL_SENDING_TIMEOUT_MS);
    return answer(reply, result);
  }

  @ReferenceOperation('revokeAuthCredential', { signature: 'signedRetry' })
  @Delete('auth/credentials/:id')
  @HttpCode(204)
  @RequiresPermission('MANAGE')
  async revoke(
    @Param('id', credentialId) id: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    return answer(
      reply,
      await this.call.request<SignedReply<unknown>>(
        subjects.accounts.embeddedWallet.revokeCredential,
        { credentialId: id, ...walletHeaders(request) },
        context,
      ),
    );
  }

  @ReferenceOperation('challengeAuthCredential')
  @Post('auth/credentials/:id/challenge')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  @ApiBody({ type: AuthCredentialChallengeRequest, required: false })
  async challenge(
    @Param('id', credentialId) id: string,
    @OptionalBody(AuthCredentialChallengeRequest) body: AuthCredentialChallengeRequest,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    return this.call.request(
      subjects.accounts.embeddedWallet.challengeCredential,
      { credentialId: id, body: { ...body } },
      context,
      MAIL_SENDING_TIMEOUT_MS,
    );
  }

  @ReferenceOperation('verifyAuthCredential', { signature: 'signedRetry' })
  @Post('auth/credentials/:id/verify')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  async verify(
    @Param('id', credentialId) id: string,
    @Body(new DiscriminatedBodyPipe('type', credentialVerifyVariants)) body: object,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    const result = await this.call.request<SignedReply<AuthSessionWire>>(
      subjects.accounts.embeddedWallet.verifyCredential,
      { credentialId: id, body: { ...body }, ...walletHeaders(request) },
      context,
    );
    return answer(reply, result);
  }

  @ReferenceOperation('listAuthSessions')
  @Get('auth/sessions')
  @RequiresPermission('VIEW')
  sessions(@Query() query: AccountIdQuery, @Ctx() context: RequestContext): Promise<{ data: AuthSessionWire[] }> {
    return this.call.request(subjects.accounts.embeddedWallet.listSessions, { accountId: query.accountId }, context);
  }

  @ReferenceOperation('revokeAuthSession', { signature: 'signedRetry' })
  @Delete('auth/sessions/:id')
  @HttpCode(204)
  @RequiresPermission('MANAGE')
  async revokeSession(
    @Param('id', sessionId) id: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    return answer(
      reply,
      await this.call.request<SignedReply<unknown>>(
        subjects.accounts.embeddedWallet.revokeSession,
        { sessionId: id, ...walletHeaders(request) },
        context,
      ),
    );
  }

  @ReferenceOperation('refreshAuthSession', { signature: 'signedRetry' })
  @Post('auth/sessions/:id/refresh')
  @RequiresPermission('MANAGE')
  async refresh(
    @Param('id', sessionId) id: string,
    @Body() body: AuthSessionRefreshRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    return answer(
      reply,
      await this.call.request<SignedReply<AuthSessionWire>>(
        subjects.accounts.embeddedWallet.refreshSession,
        { sessionId: id, body: { ...body }, ...walletHeaders(request) },
        context,
      ),
    );
  }

  /** Not a reference operation: the sandbox's outgoing OTP mail, for developers and tests (decision 0017). */
  @ExtensionOperation('listSandboxMail')
  @Get('sandbox/auth/mailbox')
  @RequiresPermission('VIEW')
  @UseGuards(SandboxOnlyGuard)
  @ApiTags('Sandbox')
  mailbox(@Query() query: AccountIdQuery, @Ctx() context: RequestContext): Promise<{ data: SandboxMailWire[] }> {
    return this.call.request(subjects.accounts.embeddedWallet.sandboxMailbox, { accountId: query.accountId }, context);
  }
}
