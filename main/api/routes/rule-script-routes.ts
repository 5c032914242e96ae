import { Type } from 'typebox';
import {
  TestScriptQuery,
  TestScriptRequest,
  TestScriptResponse,
} from '../../../shared/schemas/rule-script.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import { testScript } from '../../rule-engine/script/test-script.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api } from '../route-types.ts';

/** The node form's "test script": runs a script on a sample message in the sandbox. */
export function registerRuleScriptRoutes(app: Api): void {
  const tags = ['Rule chains'];
  app.post(
    '/api/ruleChain/testScript',
    {
      schema: {
        tags,
        summary:
          'Run a rule node script (JS or TBEL) once on a sample message; output is the result, error why it failed',
        querystring: TestScriptQuery,
        body: TestScriptRequest,
        response: { 200: TestScriptResponse, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return testScript(request.body, request.query.scriptLang ?? 'JS');
    },
  );
  app.get(
    '/api/ruleChain/tbelEnabled',
    {
      schema: {
        tags,
        summary: 'Whether TBEL scripts can run (always true here)',
        response: { 200: Type.Boolean(), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return true;
    },
  );
}
