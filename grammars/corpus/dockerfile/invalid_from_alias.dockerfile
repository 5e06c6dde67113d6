FROM alpine AS
RUN echo hi
