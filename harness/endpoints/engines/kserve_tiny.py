"""A tiny model behind KServe's Python model server (Open Inference Protocol v2 over REST).

Run with an environment that has ``kserve`` (its pins clash with ours; ``kserve_server.start_kserve_tiny`` does):
    .venv-kserve/bin/python harness/endpoints/engines/kserve_tiny.py HTTP_PORT GRPC_PORT
serves ``tiny-linear`` (a fixed 4x4 linear map, FP32 input ``input-0`` of shape [batch, 4]) at
``/v2/models/tiny-linear/infer``, and its Prometheus metrics at ``/metrics`` on the same port.
"""

import sys

import numpy as np
from kserve import InferOutput, InferRequest, InferResponse, Model, ModelServer


class TinyLinear(Model):
    def __init__(self, name: str):
        super().__init__(name)
        self.weights = np.linspace(-1.0, 1.0, 16, dtype=np.float32).reshape(4, 4)
        self.ready = True

    def predict(self, payload: InferRequest, headers=None, response_headers=None) -> InferResponse:
        inputs = payload.inputs[0].as_numpy().astype(np.float32)
        result = inputs @ self.weights
        output = InferOutput(name="output-0", shape=list(result.shape), datatype="FP32")
        output.set_data_from_numpy(result, binary_data=False)
        return InferResponse(model_name=self.name, infer_outputs=[output], response_id=payload.id)


if __name__ == "__main__":
    server = ModelServer(http_port=int(sys.argv[1]), grpc_port=int(sys.argv[2]), enable_grpc=False)
    server.start([TinyLinear("tiny-linear")])
