import { Type } from 'typebox';
import { ChainTestReport, ChainTests, chainTestsIssues } from '../../../shared/schemas/chain-tests.ts';
import { ErrorResponse, Uuid } from '../../../shared/schemas/common.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import { ErrorCode, invalidArgument, PlatformError } from '../../platform/errors.ts';
import { runChainTests, type ScratchRules } from '../../rule-engine/chain-tests/run-cases.ts';
import { copyIntoScratch } from '../../rule-engine/chain-tests/scratch-chains.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, ownValidation, type Api, type RouteDeps } from '../route-types.ts';

/** A request's cases stop being run after this (those left are reported as not run). */
const REST_RUN_MAX_MS = 120_000;

/**
 * POST /api/sandboard/ruleChain/{id}/test: the chain (with the chains it calls) is copied into a scratch
 * platform of its own and the cases run there, so a test leaves nothing in the user's data: no test device,
 * no alarm, no saved value. One test runs at a time.
 */
export function registerChainTestRoutes(
  app: Api,
  { ruleChains, scratchRules }: RouteDeps & { scratchRules: () => Promise<ScratchRules> },
): void {
  let running = false;
  app.post(
    '/api/sandboard/ruleChain/:ruleChainId/test',
    {
      ...ownValidation,
      schema: {
        tags: ['Rule chains'],
        summary:
          "Run test cases (the CASES document of `sandboard test-chain`) through a CORE chain, in a scratch copy of the platform: each case's result, the relations each node emitted and the message's way",
        params: Type.Object({ ruleChainId: Uuid }),
        body: ChainTests,
        response: { 200: ChainTestReport, 429: ErrorResponse, ...authErrors },
      },
    },
    async (request) => {
      const actor = principalOf(request);
      requireTenantAdmin(actor);
      const { ruleChainId } = request.params as { ruleChainId: string };
      const chain = ruleChains.get(ruleChainId, actor);
      if (chain.type !== 'CORE')
        throw invalidArgument('Only CORE rule chains run messages; this one is an EDGE chain');
      const issues = chainTestsIssues(request.body);
      if (issues.length)
        throw invalidArgument(
          `The test cases are not valid: ${issues
            .slice(0, 10)
            .map((i) => `${i.path || '(document)'}: ${i.message}`)
            .join('; ')}`,
        );
      if (running)
        throw new PlatformError(
          429,
          ErrorCode.TOO_MANY_REQUESTS,
          'Another rule chain test is running; try again when it has finished',
        );
      running = true;
      try {
        const rules = await scratchRules();
        try {
          await copyIntoScratch(rules, ruleChains, ruleChainId);
          return await runChainTests(rules, ruleChainId, request.body as ChainTests, {
            maxDurationMs: REST_RUN_MAX_MS,
          });
        } finally {
          await rules.stop();
        }
      } finally {
        running = false;
      }
    },
  );
}
