const methods = ['get', 'post'];

class Router {
  route(path) {
    return new Route(path);
  }
}

function createRouter(options) {
  return new Router(options);
}

module.exports = { createRouter };
