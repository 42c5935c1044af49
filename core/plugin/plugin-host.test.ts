import { expect } from 'chai';
import { container } from 'tsyringe';
import { Type } from 'typebox';
import { DiscoveryFacts } from './discovery-facts.js';
import { CapabilityFlags } from './capabilities.js';
import { silentLogger } from './logger.js';
import { definePlugin, type LoomPlugin } from './plugin.js';
import { orderPlugins, PluginError, registerPlugins } from './plugin-host.js';
import { RouteCatalog } from './route-catalog.js';
import { token } from '../di/token.js';

const plugin = (name: string, dependencies: string[] = [], register: LoomPlugin['register'] = () => {}): LoomPlugin => ({ name, version: '1.0.0', dependencies, register });

function sinks() {
  return {
    root: container.createChildContainer(),
    catalog: new RouteCatalog(),
    capabilities: new CapabilityFlags(),
    facts: new DiscoveryFacts(),
    log: silentLogger,
    dataDir: null,
    fold: () => ({ state: () => undefined, snapshot: () => ({ state: undefined, watermark: 0 }) }),
    systemThread: () => {},
    loop: () => {},
    consume: () => {
      throw new Error('no log consumers in these tests');
    },
    ingestGate: () => {},
    readPolicy: () => {},
    configTopic: () => {},
    requestObserver: () => {},
    corsHeader: () => {},
    backupState: () => {},
  };
}

describe('plugin host', () => {
  it('orders plugins by their dependencies, not by list order', () => {
    const order = orderPlugins([plugin('c', ['b']), plugin('a'), plugin('b', ['a'])]).map((p) => p.name);
    expect(order).to.deep.equal(['a', 'b', 'c']);
  });

  it('refuses a duplicate name', () => {
    expect(() => orderPlugins([plugin('a'), plugin('a')])).to.throw(PluginError, '"a"');
  });

  it('refuses a missing dependency, naming both plugins', () => {
    expect(() => orderPlugins([plugin('web', ['auth'])])).to.throw(PluginError).with.property('message').that.contains('"web"').and.contains('"auth"');
  });

  it('orders a loaded optional dependency first, skips a missing one, and refuses one listed both ways', () => {
    const uses = (name: string, optional: string[], dependencies: string[] = []): LoomPlugin => ({ ...plugin(name, dependencies), optionalDependencies: optional });
    expect(orderPlugins([uses('search', ['data-plane']), plugin('data-plane')]).map((p) => p.name)).to.deep.equal(['data-plane', 'search']);
    expect(orderPlugins([uses('search', ['data-plane'])]).map((p) => p.name)).to.deep.equal(['search']);
    expect(() => orderPlugins([uses('a', ['b'], ['b']), plugin('b')])).to.throw(PluginError, 'both');
    expect(() => orderPlugins([uses('a', ['b']), uses('b', ['a'])])).to.throw(PluginError, 'cycle');
  });

  it('refuses a dependency cycle and non-kebab names', () => {
    expect(() => orderPlugins([plugin('a', ['b']), plugin('b', ['a'])])).to.throw(PluginError, 'cycle');
    expect(() => orderPlugins([plugin('NotKebab')])).to.throw(PluginError, 'kebab');
  });

  it('validates options, applies defaults, and gives each plugin a private container', async () => {
    const seen: unknown[] = [];
    const Private = token<string>('test.Private');
    const Shared = token<string>('test.Shared');
    const withOptions = definePlugin({
      name: 'with-options',
      version: '1.0.0',
      options: Type.Object({ size: Type.Integer({ minimum: 1, default: 7 }) }),
      register(scope, options) {
        seen.push(options);
        scope.container.register(Private, { useValue: 'mine' });
        scope.expose(Shared, 'for everyone');
      },
    });
    const s = sinks();
    const result = await registerPlugins([withOptions, plugin('reader', ['with-options'], (scope) => void seen.push(scope.container.resolve(Shared)))], s);
    expect(seen).to.deep.equal([{ size: 7 }, 'for everyone']);
    expect(result.containers.get('reader')!.isRegistered(Private, true)).to.equal(false);
    try {
      await registerPlugins([{ plugin: withOptions, options: { size: 0 } }], sinks());
      expect.fail('expected refusal');
    } catch (error) {
      expect(error).to.be.instanceOf(PluginError);
    }
    try {
      await registerPlugins([{ plugin: plugin('plain'), options: { x: 1 } }], sinks());
      expect.fail('expected refusal');
    } catch (error) {
      expect(error).to.be.instanceOf(PluginError);
    }
  });

  it('refuses two routes with one operationId or one method and path', () => {
    const catalog = new RouteCatalog();
    const route = { operationId: 'getThing', method: 'GET', path: '/v1/things/{id}', summary: '', tags: [], auth: 'none', responses: {}, errors: [], inject: {}, handler: () => null } as const;
    catalog.add('a', route);
    expect(() => catalog.add('b', { ...route, path: '/v1/other' })).to.throw(/getThing/);
    expect(() => catalog.add('b', { ...route, operationId: 'getOther', path: '/v1/things/{key}' })).to.throw(/conflicts/);
  });
});
